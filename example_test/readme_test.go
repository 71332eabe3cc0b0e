package example_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/result"
)

// readme is the module's README.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// blockAfter is the text of the first fenced block after the README's
// first line holding marker.
func blockAfter(t *testing.T, text, marker string) string {
	t.Helper()
	i := strings.Index(text, marker)
	if i < 0 {
		t.Fatalf("README.md no longer says %q", marker)
	}
	rest := text[i+len(marker):]
	j := strings.Index(rest, "\n```")
	if j < 0 {
		t.Fatalf("README.md: no block after %q", marker)
	}
	rest = rest[j+4:]
	rest = rest[strings.IndexByte(rest, '\n')+1:]
	k := strings.Index(rest, "\n```")
	if k < 0 {
		t.Fatalf("README.md: a block after %q never ends", marker)
	}
	return rest[:k+1]
}

// numbers are what differ between two runs of a line: times, counts,
// figures, line numbers.
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// failing runs the example test on the simulated phone running workload
// instead of its own (PERFGATE_SIM_WORKLOAD), in a child process, with its
// Results and reports in folders of their own, and returns its output and
// the folders. The test must fail there.
func failing(t *testing.T, test, workload string) (out []byte, results, reports string) {
	t.Helper()
	if os.Getenv("ANDROID_SERIAL") != "" {
		t.Skip("the examples run on a phone (ANDROID_SERIAL), not on a simulated one whose app can be swapped")
	}
	dir := t.TempDir()
	results, reports = filepath.Join(dir, "results"), filepath.Join(dir, "report")
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.count", "1")
	cmd.Env = append(os.Environ(), EnvSimWorkload+"="+workload, "PERFGATE_RESULTS="+results, "PERFGATE_REPORT="+reports, "PERFGATE_HISTORY=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s passed on %s:\n%s", test, workload, out)
	}
	return out, results, reports
}

// The memory-leak gate fails an app that leaks, every round of it, with
// the growth the simulated app truly has (768 KiB/s: 46080 KiB/min, read
// as a slope over about six meminfo reads a round). The child runs on the
// wall clock, as the examples do: should its session record that the host
// stalled, a difference is not the gate's, and the test is skipped
// naming it (simtest.WallClock).
func TestMemoryLeakGateCatchesALeak(t *testing.T) {
	out, results, _ := failing(t, "TestMemoryLeakGate", "memory-leak")
	growth := regexp.MustCompile(`perf budget exceeded: scroll(#[2-5])?: pss_growth ([0-9.]+)KiB/min > 2048KiB/min \(least-squares slope of PSS\)`)
	lines := growth.FindAllStringSubmatch(string(out), -1)
	var problems []string
	if len(lines) != 5 {
		problems = append(problems, fmt.Sprintf("%d rounds failed, want 5:\n%s", len(lines), out))
	}
	for _, l := range lines {
		if v, _ := strconv.ParseFloat(l[2], 64); v < 0.95*46080 || v > 1.05*46080 {
			problems = append(problems, fmt.Sprintf("round %q grew %v KiB/min, want 46080 within 5 %%", l[1], v))
		}
	}
	simtest.WallClock(t, hostBusy, problems, anyStalled(results))
}

// hostBusy is what WallClock says of a child session that recorded a
// busy host.
const hostBusy = "the host was too busy for the example's session (gaps, or ticks late on their schedule)"

// stalled reports whether a session recorded that the host was too busy
// for it: gaps (polls that did not get through, data lost before they
// did), or ticks that started over half an interval late, which stretch
// the steps and coarsen every figure between them.
func stalled(r *result.Result) bool {
	return len(r.Gaps) > 0 || r.Whole != nil && r.Whole.Ticks.Late > 0
}

// anyStalled reports whether a session whose Result is in results
// stalled.
func anyStalled(results string) bool {
	files, _ := filepath.Glob(filepath.Join(results, "*.json"))
	for _, f := range files {
		if r, err := result.ReadResult(f); err == nil && stalled(r) {
			return true
		}
	}
	return false
}

// The README's main job is scroll_test.go as it is, and the failure the
// README shows for a jankier app is the failure it gives: the same lines,
// numbers aside. That failure is data too: the session's Result keeps the
// failing verdicts and the test's failure, and its report page, the
// folder's index.html and its Markdown summary show it failed, with the
// line.
func TestREADMEMainJob(t *testing.T) {
	text := readme(t)
	src, err := os.ReadFile("scroll_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fn := string(src[strings.Index(string(src), "func TestScrollJankBudget"):])
	if shown := blockAfter(t, text, "The main job is `example_test/scroll_test.go`"); shown != fn {
		t.Errorf("README.md shows the main job as\n%s\nscroll_test.go holds\n%s", shown, fn)
	}

	out, results, reports := failing(t, "TestScrollJankBudget", "janky-feed")
	pick := func(s string) []string {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); strings.Contains(l, "perf budget") || strings.HasPrefix(l, "--- FAIL") || strings.Contains(l, "-update") {
				lines = append(lines, numbers.ReplaceAllString(l, "N"))
			}
		}
		return lines
	}
	want := pick(blockAfter(t, text, "PERFGATE_SIM_WORKLOAD=janky-feed go test -run TestScrollJankBudget ./example_test/   # exits 1\n```"))
	got := pick(string(out))
	var problems []string
	if !slices.Equal(got, want) || len(want) < 3 {
		problems = append(problems, fmt.Sprintf("on janky-feed the main job fails with\n%s\nthe README shows\n%s\n(numbers aside)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out))
	}

	// The Result keeps what failed.
	files, _ := filepath.Glob(filepath.Join(results, "TestScrollJankBudget@*.json"))
	if len(files) != 1 {
		t.Fatalf("results: %v", files)
	}
	r, err := result.ReadResult(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, v := range r.Verdicts {
		if v.Fails() {
			failing = append(failing, v.Line)
		}
	}
	if !r.TestFailed || len(failing) != 3 || !slices.ContainsFunc(r.Verdicts, func(v budget.Verdict) bool {
		return v.Metric == "fps" && v.Passed() && strings.HasPrefix(v.From, "testdata/scroll.budget.json:")
	}) {
		problems = append(problems, fmt.Sprintf("the Result: test failed %v, failing verdicts %q, verdicts %+v", r.TestFailed, failing, r.Verdicts))
	}
	// And every page says so, with the line.
	base := strings.TrimSuffix(filepath.Base(files[0]), ".json")
	line := "perf budget exceeded: scroll: jank 5 &gt; 3"
	for _, p := range []struct{ file, failed string }{
		{base + ".html", `<span class="fail">✗</span>`},
		{base + ".md", "### ❌ TestScrollJankBudget"},
		{"index.html", `<span class="fail">failed</span>`},
	} {
		b, err := os.ReadFile(filepath.Join(reports, p.file))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		l := line
		if strings.HasSuffix(p.file, ".md") {
			l = strings.ReplaceAll(line, "&gt;", ">")
		}
		if !strings.Contains(page, p.failed) || p.file != "index.html" && !strings.Contains(page, l) || strings.Contains(page, `class="pass">passed`) {
			problems = append(problems, fmt.Sprintf("%s does not show the session failed with %q:\n%.3000s", p.file, l, page))
		}
	}
	// The example runs on the wall clock, through the pure-Go adb server
	// in a child process: a host too busy for it stretches the steps or
	// loses frames, and the session records it.
	simtest.WallClock(t, hostBusy, problems, stalled(r))
}
