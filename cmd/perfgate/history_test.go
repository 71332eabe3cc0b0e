package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
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
		st := &perftest.Step{Name: "scroll"}
		st.FrameStats.Source, st.FrameStats.Frames, st.FrameStats.FPS = "gfxinfo", 100, 60
		st.FrameStats.FrameTimeMS.P95 = level * (1 + 0.03*rng.NormFloat64())
		r := &perftest.Result{Name: "TestFeed", Start: start.Add(time.Duration(i) * time.Hour), Steps: []*perftest.Step{st},
			Device: metrics.DeviceFacts{Serial: "s1", Model: "Pixel 7", Release: "14", API: 34}, App: perftest.AppInfo{Package: "com.example.feed"}}
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
	for _, want := range []string{"TestFeed scroll frame_time_p95 on Pixel 7 (ms, frame duration, nearest rank): 30 runs", "change: frame_time_p95 of scroll rose ", " at abc0020, p = 0.001: ", "for the worse"} {
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
	if e := f.Steps["scroll"]["frame_time_p95"]; e == nil || e.Max == nil || *e.Max < 18*1.25 || *e.Max > 18*1.25*1.25 || !strings.Contains(stderr, "since its change at abc0020") {
		t.Errorf("frame_time_p95 budget %+v; stderr:\n%s", e, stderr)
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

// Reading a history that is not there is an error naming it; it creates
// neither the file nor its folder.
func TestHistoryReadMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexist", "h.db")
	for _, args := range [][]string{{"trend"}, {"digest"}, {"html", "-o", t.TempDir()}, {"budget", "-test", "TestFeed"}} {
		_, _, err := perfgate(append(append([]string{"history"}, args...), "-history", missing)...)
		if err == nil || !strings.Contains(err.Error(), missing) {
			t.Errorf("history %s of a missing history: %v", args[0], err)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("reading a missing history created %s", filepath.Dir(missing))
	}
}
