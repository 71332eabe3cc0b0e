package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	rtmetrics "runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/result"
)

// historyResults writes n Result files of TestFeed on a Pixel 7, one hour
// apart: scroll's frame_time_p95 near 18 ms with 3 % noise, 25 % higher
// from run at on.
func historyResults(t *testing.T, n, at int) []string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var paths []string
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		level := 18.0
		if i >= at {
			level *= 1.25
		}
		st := &result.Step{Name: "scroll"}
		st.FrameStats.Source, st.FrameStats.Frames, st.FrameStats.FPS = "gfxinfo", 100, 60
		st.FrameStats.FrameTimeMS.P95 = level * (1 + 0.03*rng.NormFloat64())
		r := &result.Result{Name: "TestFeed", Start: start.Add(time.Duration(i) * time.Hour), Steps: []*result.Step{st},
			Device: procfs.DeviceFacts{Serial: "s1", Model: "Pixel 7", Release: "14", API: 34}, App: result.AppInfo{Package: "com.example.feed"}}
		p := filepath.Join(dir, fmt.Sprintf("run%02d.json", i))
		if err := r.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func perfgate(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(args, &out, &errb)
	return out.String(), errb.String(), err
}

// perfgate history end to end: add Results (each once), the trend names
// the commit of the change, the digest lists it and -check fails on it,
// the trend pages and a budget file are written.
func TestHistoryCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perf.db")
	t.Setenv("PERFGATE_HISTORY", "")
	paths := historyResults(t, 30, 20)
	for i, p := range paths {
		out, _, err := perfgate("history", "add", "-history", db, "-commit", fmt.Sprintf("abc%04d", i), "-branch", "main", "-report-base", "https://ci.example/r", p)
		if err != nil || !strings.Contains(out, "1 of 1 runs added") {
			t.Fatalf("add %s: %v\n%s", p, err, out)
		}
	}
	out, _, err := perfgate("history", "add", "-history", db, "-commit", "again", filepath.Dir(paths[0]))
	if err != nil || !strings.Contains(out, "0 of 30 runs added") {
		t.Fatalf("adding the folder again: %v\n%s", err, out)
	}

	out, _, err = perfgate("history", "trend", "-history", db, "-metric", "frame_time_p95")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TestFeed scroll frame_time_p95 on Pixel 7 (ms, frame duration, nearest rank): 30 runs", "change: frame_time_p95 of scroll rose ", " at abc0020, p = ", "for the worse"} {
		if !strings.Contains(out, want) {
			t.Errorf("trend lacks %q:\n%s", want, out)
		}
	}
	out, _, err = perfgate("history", "trend", "-history", db, "-metric", "frame_time_p95", "-json")
	var js []struct {
		Points []struct {
			ReportURL string `json:"report_url"`
		} `json:"points"`
		Changes []struct{ Commit string } `json:"changes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &js) != nil || len(js) != 1 || len(js[0].Changes) != 1 || js[0].Changes[0].Commit != "abc0020" || js[0].Points[0].ReportURL != "https://ci.example/r/run00.html" {
		t.Errorf("trend -json: %v %+v\n%s", err, js, out)
	}

	out, _, err = perfgate("history", "digest", "-history", db, "-check")
	var ec exitCoder
	if !errors.As(err, &ec) || ec.ExitCode() != 1 || !strings.Contains(out, `frame\_time\_p95 of scroll rose`) {
		t.Errorf("digest -check: %v\n%s", err, out)
	}
	out, _, err = perfgate("history", "digest", "-history", db, "-since", "abc0022", "-check")
	if err != nil || !strings.Contains(out, "No change points since") {
		t.Errorf("digest since a later commit: %v\n%s", err, out)
	}
	_, _, err = perfgate("history", "digest", "-history", db, "-since", "yesterday-ish")
	if err == nil || !strings.Contains(err.Error(), `"yesterday-ish"`) {
		t.Errorf("digest -since nonsense: %v", err)
	}

	pages := t.TempDir()
	if _, _, err := perfgate("history", "html", "-history", db, "-o", pages, "-budget", "scroll:frame_time_p95<=30"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(pages, "trend-frame_time_p95.html")); err != nil || !strings.Contains(string(b), `class="change"`) || !strings.Contains(string(b), `class="budget"`) {
		t.Errorf("trend page: %v", err)
	}

	bfile := filepath.Join(t.TempDir(), "feed.budget.json")
	_, stderr, err := perfgate("history", "budget", "-history", db, "-test", "TestFeed", "-o", bfile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := budget.ReadBudgetFile(bfile)
	if err != nil {
		t.Fatalf("the suggested budget file does not read back: %v", err)
	}
	// The frame time rose 25 % at run 20: the budget holds the level
	// before (18 ms, +10 %), which the runs since break, and says so.
	if e := f.Steps["scroll"]["frame_time_p95"]; e == nil || e.Max == nil || *e.Max < 18 || *e.Max >= 18*1.25 || !strings.Contains(stderr, "BEFORE ITS CHANGE FOR THE WORSE: frame_time_p95 of scroll rose 2") ||
		!strings.Contains(stderr, "WARNING: 1 budget rests on the runs before a change for the worse") {
		t.Errorf("frame_time_p95 budget %+v; stderr:\n%s", e, stderr)
	}
	// Reading the runs from the change on accepts it.
	from := regexp.MustCompile(`-from (\S+) reads the runs since`).FindStringSubmatch(stderr)
	if from == nil {
		t.Fatalf("no -from to accept the change:\n%s", stderr)
	}
	if _, stderr, err = perfgate("history", "budget", "-history", db, "-test", "TestFeed", "-from", from[1], "-o", bfile); err != nil {
		t.Fatal(err)
	}
	if f, err = budget.ReadBudgetFile(bfile); err != nil {
		t.Fatal(err)
	}
	if e := f.Steps["scroll"]["frame_time_p95"]; e == nil || e.Max == nil || *e.Max < 18*1.25 || *e.Max > 18*1.25*1.25 || strings.Contains(stderr, "WARNING") {
		t.Errorf("frame_time_p95 budget from the change on %+v; stderr:\n%s", e, stderr)
	}
	if _, _, err := perfgate("history", "budget", "-history", db); err == nil || !strings.Contains(err.Error(), "-test") {
		t.Errorf("budget without -test: %v", err)
	}
}

// A report base a click would run is refused before anything is added.
func TestHistoryAddRefusesScriptLinks(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	for _, base := range []string{"javascript:alert(1)//", "data:text/html,x"} {
		_, _, err := perfgate("history", "add", "-history", db, "-report-base", base, filepath.Join("..", "..", "report", "testdata", "janky-scroll.json"))
		if err == nil || !strings.Contains(err.Error(), "-report-base") || !strings.Contains(err.Error(), "want an http(s) URL or a relative path") {
			t.Errorf("-report-base %s: %v", base, err)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused add created %s", db)
	}
}

// Reading a history that is not there is an error naming the command and
// the history; it creates neither the file nor its folder.
func TestHistoryReadMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexist", "h.db")
	for _, args := range [][]string{{"trend"}, {"digest"}, {"html", "-o", t.TempDir()}, {"budget", "-test", "TestFeed"}} {
		_, _, err := perfgate(append(append([]string{"history"}, args...), "-history", missing)...)
		if err == nil || !strings.HasPrefix(err.Error(), "history "+args[0]+": no history "+missing+" (") {
			t.Errorf("history %s of a missing history: %v", args[0], err)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("reading a missing history created %s", filepath.Dir(missing))
	}
}

// addHeapPeak samples the heap's live-and-unswept object bytes every
// millisecond until stopped and returns the most it saw.
func addHeapPeak() (stop func() uint64) {
	sample := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			rtmetrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// copiesOf writes n copies of a real Result into a folder, each a run of
// its own (its start an hour after the last).
func copiesOf(t *testing.T, n int) (dir string, size int64) {
	t.Helper()
	r, err := result.ReadResult(filepath.Join("..", "..", "report", "testdata", "janky-scroll.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for i := range n {
		r.Start = r.Start.Add(time.Hour)
		p := filepath.Join(dir, fmt.Sprintf("run%03d.json", i))
		if err := r.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	return dir, size
}

// history add holds one Result at a time, never the folder: adding 150
// Result files (30 MB of JSON) keeps the heap under a third of that, where
// reading them all first held them all (the heap peaked above the files'
// size). Every run is added, in transactions of at most 100 runs.
func TestHistoryAddStreams(t *testing.T) {
	t.Setenv("PERFGATE_HISTORY", "")
	dir, size := copiesOf(t, 150)
	db := filepath.Join(t.TempDir(), "h.db")
	runtime.GC()
	stop := addHeapPeak()
	out, _, err := perfgate("history", "add", "-history", db, "-commit", "abc1234", dir)
	peak := stop()
	if err != nil || !strings.Contains(out, "150 of 150 runs added") || strings.Count(out, "\nadded ") != 149 {
		t.Fatalf("add: %v\n%.500s", err, out)
	}
	t.Logf("%d Result files, %.1f MB: heap peak %.1f MB", 150, float64(size)/(1<<20), float64(peak)/(1<<20))
	if peak > uint64(size/3) {
		t.Errorf("the heap peaked at %.1f MB adding %.1f MB of Results", float64(peak)/(1<<20), float64(size)/(1<<20))
	}
}

// A file that is not a Result, or a Result the history cannot keep,
// stops history add before anything is added, with an error that names
// the file; a folder's JSON files of another schema are passed over.
func TestHistoryAddBadFiles(t *testing.T) {
	t.Setenv("PERFGATE_HISTORY", "")
	// count is how many runs the history holds: those of its longest
	// series.
	count := func(db string) int {
		t.Helper()
		out, _, err := perfgate("history", "trend", "-history", db, "-json")
		if err != nil {
			t.Fatal(err)
		}
		var js []struct {
			Points []any `json:"points"`
		}
		if err := json.Unmarshal([]byte(out), &js); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, s := range js {
			n = max(n, len(s.Points))
		}
		return n
	}
	for _, c := range []struct {
		name, file, content string
		want                []string
	}{
		{"broken JSON", "run001b.json", `{"schema": "perfgate.result/v`, []string{"run001b.json", "unexpected end of JSON input"}},
		{"no start time", "run001b.json", "", []string{"run001b.json", "has no start time"}},
	} {
		dir, _ := copiesOf(t, 3)
		if err := os.WriteFile(filepath.Join(dir, "budget.json"), []byte(`{"schema": "perfgate.budget/v1"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		content := []byte(c.content)
		if c.content == "" {
			r, err := result.ReadResult(filepath.Join(dir, "run001.json"))
			if err != nil {
				t.Fatal(err)
			}
			r.Start = time.Time{}
			if err := r.WriteFile(filepath.Join(dir, c.file)); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(filepath.Join(dir, c.file), content, 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(t.TempDir(), "h.db")
		// The history exists, holding one run of another test.
		one := historyResults(t, 1, 1)
		if _, _, err := perfgate("history", "add", "-history", db, one[0]); err != nil {
			t.Fatal(err)
		}
		_, _, err := perfgate("history", "add", "-history", db, dir)
		if err == nil || !contains(err.Error(), c.want...) {
			t.Errorf("%s: err %v, want it to say %q", c.name, err, c.want)
		}
		if n := count(db); n != 1 {
			t.Errorf("%s: the history holds %d runs, want 1 (nothing added)", c.name, n)
		}
		// Without the bad file, the folder adds (its budget file passed
		// over).
		os.Remove(filepath.Join(dir, c.file))
		if out, _, err := perfgate("history", "add", "-history", db, dir); err != nil || !strings.Contains(out, "3 of 3 runs added") {
			t.Errorf("%s: without the bad file: %v\n%s", c.name, err, out)
		}
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// -last bounds what trend and html show of a series one run at a time;
// the runs before are summarised, and change points are still looked for
// among them all.
func TestHistoryLast(t *testing.T) {
	t.Setenv("PERFGATE_HISTORY", "")
	db := filepath.Join(t.TempDir(), "perf.db")
	paths := historyResults(t, 30, 20)
	if _, _, err := perfgate("history", "add", "-history", db, "-commit", "abc", filepath.Dir(paths[0])); err != nil {
		t.Fatal(err)
	}
	out, _, err := perfgate("history", "trend", "-history", db, "-metric", "frame_time_p95", "-series", "-last", "5")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "30 runs, 2026-11-01 … 2026-11-02") || !strings.Contains(out, "  2026-11-01 09:00 … 2026-11-02 09:00  25 older runs: median 18.") ||
		strings.Count(out, "(median of 1)") != 5 || !strings.Contains(out, "change: frame_time_p95 of scroll rose") {
		t.Errorf("trend -series -last 5:\n%s", out)
	}
	out, _, err = perfgate("history", "trend", "-history", db, "-metric", "frame_time_p95", "-json", "-last", "5")
	var js []struct {
		Runs  int `json:"runs"`
		Older *struct {
			Runs int `json:"runs"`
		} `json:"older"`
		Points  []json.RawMessage     `json:"points"`
		Changes []struct{ Index int } `json:"changes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &js) != nil || len(js) != 1 || js[0].Runs != 30 || js[0].Older == nil || js[0].Older.Runs != 25 || len(js[0].Points) != 5 ||
		len(js[0].Changes) != 1 || js[0].Changes[0].Index != 20 {
		t.Errorf("trend -json -last 5: %v\n%s", err, out)
	}
	pages := t.TempDir()
	if _, _, err := perfgate("history", "html", "-history", db, "-o", pages, "-last", "3"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(pages, "trend-frame_time_p95.html"))
	if err != nil || strings.Count(string(b), `<circle class="run"`) != 3 || !strings.Contains(string(b), "the newest 3 are points, the 27 before them are summarised") {
		t.Errorf("html -last 3: %v", err)
	}
	if _, _, err := perfgate("history", "trend", "-history", db, "-last", "-1"); err == nil || !strings.Contains(err.Error(), "-last -1") {
		t.Errorf("-last -1: %v", err)
	}
}

// A misspelt filter is an error that names it and the names it may have
// meant, not an empty answer: a metric perfgate does not measure, and a
// test the history has no runs of.
func TestHistoryNamesUnknownFilters(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perf.db")
	paths := historyResults(t, 6, 6)
	if _, _, err := perfgate(append([]string{"history", "add", "-history", db, "-commit", "abc"}, paths...)...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"trend", "-metric", "jnak"}, []string{`-metric "jnak" is no metric perfgate measures; did you mean jank?`, "frame_time_p95"}},
		{[]string{"digest", "-metric", "frame_time_p59"}, []string{"did you mean frame_time_p50 or frame_time_p95 or frame_time_p99?"}},
		{[]string{"html", "-test", "TestFed", "-o", t.TempDir()}, []string{`-test "TestFed" matches no series of history ` + db + "; did you mean TestFeed?"}},
		{[]string{"budget", "-test", "TestFeed", "-device", "Pixel 8"}, []string{`-device "Pixel 8" matches no series`, "did you mean Pixel 7?"}},
	} {
		out, _, err := perfgate(append(append([]string{"history"}, c.args...), "-history", db)...)
		if err == nil {
			t.Errorf("history %s: no error; printed:\n%s", strings.Join(c.args, " "), out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("history %s: %v\nwant %q", strings.Join(c.args, " "), err, w)
			}
		}
	}
	// Names that are there, in a combination that is not, still say so
	// without an error.
	out, _, err := perfgate("history", "trend", "-history", db, "-metric", "jank", "-from", "2099-01-01T00:00:00Z")
	if err != nil || !strings.Contains(out, "no series match") {
		t.Errorf("trend of a later time: %v\n%s", err, out)
	}
}

// history html -budgets reads a bare file name from the working
// directory, as report -budgets does (every command's paths are from the
// working directory), not from testdata/.
func TestHistoryHTMLBudgetsFromWorkingDir(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perf.db")
	paths := historyResults(t, 6, 6)
	if _, _, err := perfgate(append([]string{"history", "add", "-history", db, "-commit", "abc"}, paths...)...); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(path string, limit int) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		b := fmt.Sprintf(`{"schema": %q, "steps": {"scroll": {"frame_time_p95": {"max": %d, "unit": "ms"}}}}`, budget.BudgetSchema, limit)
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fb.json", 31)
	write(filepath.Join("testdata", "fb.json"), 47)
	if _, _, err := perfgate("history", "html", "-history", db, "-budgets", "fb.json", "-o", "pages"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("pages", "trend-frame_time_p95.html"))
	if err != nil {
		t.Fatal(err)
	}
	if page := string(b); !strings.Contains(page, "budget frame_time_p95 ≤ 31ms") || strings.Contains(page, "≤ 47") {
		t.Errorf("the trend page does not draw ./fb.json's limit of 31 ms")
	}
}

// A history of too few runs for a budget says so in a few lines, and how
// many more runs would do, rather than a line per series.
func TestHistoryBudgetTooFewRuns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "perf.db")
	paths := historyResults(t, 2, 2)
	if _, _, err := perfgate(append([]string{"history", "add", "-history", db, "-commit", "abc"}, paths...)...); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := perfgate("history", "budget", "-history", db, "-test", "TestFeed")
	if err == nil || !strings.Contains(err.Error(), "no budget to suggest: no series of test \"TestFeed\" has 5 runs") {
		t.Errorf("budget of 2 runs: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	series := strings.Count(stderr, "TestFeed scroll ")
	if len(lines) > 7 || series > 5 || !strings.Contains(stderr, "more series of too few runs") ||
		!strings.Contains(stderr, "series without a budget, measured in fewer than 5 runs at their level: up to 3 more runs of the test (go test -count=3)") {
		t.Errorf("%d lines, %d naming a series:\n%s", len(lines), series, stderr)
	}
}
