package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// unfinishedCopy writes the Result at p again as a session that did not
// reach Stop leaves it: written as its step ended, marked unfinished, with
// its figures as good as a finished run's.
func unfinishedCopy(t *testing.T, p string) string {
	t.Helper()
	r, err := result.ReadResult(p)
	if err != nil {
		t.Fatal(err)
	}
	r.Unfinished = &result.Unfinished{After: "scroll", Written: r.Start.Add(time.Minute)}
	r.Error = `unfinished: the session had not reached Stop when this Result was written, after step "scroll" ended; it was killed, or it still runs`
	out := filepath.Join(t.TempDir(), "TestFeed@feed.json")
	if err := r.WriteFile(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A Result of a session that did not reach Stop is no passing run for any
// reader: report -check fails it and says why, compare leaves it out,
// says so and fails, benchstat text has a comment in its place, and the
// history skips it.
func TestUnfinishedResultIsNoRun(t *testing.T) {
	t.Setenv("PERFGATE_HISTORY", "")
	base := historyResults(t, 6, 6)
	next := historyResults(t, 6, 6)
	unf := unfinishedCopy(t, next[0])
	var ee exitError

	out, _, err := perfgate("report", "-check", unf)
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(out, "unfinished: the session had not reached Stop") {
		t.Errorf("report -check: %v\n%s", err, out)
	}

	// The new side: five finished runs and the unfinished one.
	dir := filepath.Dir(next[1])
	os.Remove(next[0])
	if err := os.Rename(unf, next[0]); err != nil {
		t.Fatal(err)
	}
	out, _, err = perfgate("compare", filepath.Dir(base[0]), dir)
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "1 of the 6 new Results are of sessions that did not reach Stop") {
		t.Errorf("compare: %v", err)
	}
	if !strings.Contains(out, "new runs: TestFeed ("+next[0]+"): left out: unfinished") || !strings.Contains(out, "n=6+5") {
		t.Errorf("compare does not say it left the unfinished run out, or compared it:\n%s", out)
	}

	bench := filepath.Join(t.TempDir(), "bench.txt")
	if _, _, err := perfgate("report", "-bench", bench, next[0]); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(bench); strings.Contains(string(b), "Benchmark") || !strings.Contains(string(b), "# TestFeed ("+next[0]+"): left out: unfinished") {
		t.Errorf("benchstat text of an unfinished Result:\n%s", b)
	}

	db := filepath.Join(t.TempDir(), "perf.db")
	out, _, err = perfgate("history", "add", "-history", db, "-commit", "abc", next[0])
	if err != nil || !strings.Contains(out, "skipped "+next[0]+": unfinished") || !strings.Contains(out, "0 of 1 runs added") {
		t.Errorf("history add: %v\n%s", err, out)
	}
}
