package report_test

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/perfgate/perfgate/internal/browsertest"
	"github.com/perfgate/perfgate/report"
)

// The index.html of a reports folder that is also the results folder
// (PERFGATE_REPORT and PERFGATE_RESULTS alike), in headless Chromium:
// three runs of one test on one phone with their reports, a Result whose
// session wrote no report (a test package without report.Reporter, or
// `perfgate record -out`), and a budget file. Every link leads to a file
// that exists; each Result's row links its JSON, and its page and
// Markdown where it has them; each run's row names the test, the device
// and the run; no two rows read alike; the budget file is marked as no
// Result, with neither verdict, and not counted among the sessions.
func TestBrowserReportIndex(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	const n = 3
	runs := simSessions(t, n+1, 300*time.Millisecond)
	dir := t.TempDir()
	if d := os.Getenv("PERFGATE_REPORT_KEEP"); d != "" {
		dir = d
	}
	bare := *runs[n]
	assert.NilError(t, bare.WriteInDir(dir, "record"))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "fb.json"), []byte(`{"budgets": []}`), 0o644))
	for _, r := range runs[:n] {
		assert.NilError(t, report.WriteDir(dir, r, report.Options{}))
	}
	p := browsertest.Probe(t, bin, filepath.Join(dir, "index.html"))
	_, _, colours := browsertest.Render(t, bin, filepath.Join(dir, "index.html"), filepath.Join(dir, "index.png"), "1100,600")
	assert.Check(t, colours[[3]uint8{0x1a, 0x7f, 0x37}] > 20, "the verdict \"passed\" is not on the screen")

	broken, files := p.BrokenLinks()
	assert.Check(t, len(broken) == 0, "broken links: %q", broken)
	jsons := map[string]bool{}
	for _, f := range files["JSON"] {
		jsons[filepath.Base(f)] = true
	}
	for _, want := range []string{filepath.Base(bare.Path), "fb.json"} {
		assert.Check(t, jsons[want], "no link to %s: %v", want, files["JSON"])
	}
	assert.Check(t, len(files["Markdown"]) == n, "Markdown links: %q", files["Markdown"])

	dev := runs[0].Device.Model + " " + runs[0].Device.Serial
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	assert.NilError(t, err)
	var names []string
	for _, m := range regexp.MustCompile(`<tr><td>(?:<a href="[^"]*">)?([^<]*)`).FindAllStringSubmatch(string(b), -1) {
		names = append(names, html.UnescapeString(m[1]))
	}
	// The Result without reports is a fourth run of the test.
	for i := 1; i <= n+1; i++ {
		want := fmt.Sprintf("%s · %s · run %d of %d", runs[0].Name, dev, i, n+1)
		assert.Check(t, slices.ContainsFunc(names, func(s string) bool { return strings.HasPrefix(s, want) }), "no row %q in %q", want, names)
	}
	row := ""
	for _, r := range strings.Split(string(b), "</tr>") {
		if strings.Contains(r, `href="fb.json"`) {
			row = r
		}
	}
	assert.Check(t, strings.Contains(row, "not a Result") && !strings.Contains(row, "failed") && !strings.Contains(row, "passed"), "the budget file's row: %s", row)
	assert.Check(t, len(p.Headings) > 0 && p.Headings[0] == fmt.Sprintf("perfgate: all sessions (%d)", n+1), "headings %q", p.Headings)
	seen := map[string]bool{}
	for _, s := range names {
		assert.Check(t, !seen[s], "two rows read %q", s)
		seen[s] = true
	}
}
