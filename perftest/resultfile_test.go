package perftest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// A session's Result is named after the test and its package, so the
// same test name in two packages gives two files in one results folder.
func TestResultFileName(t *testing.T) {
	cfg := fastConfig(t)
	cfg.Name = "TestFeed/scroll fast"
	s := startFake(t, newFake(), cfg)
	r := s.Stop()
	if want := filepath.Join(cfg.ResultsDir, "TestFeed_scroll_fast@perftest.json"); r.Path != want {
		t.Errorf("Result at %s, want %s", r.Path, want)
	}
	if a, b := result.Base("TestFeed"), strings.TrimSuffix(result.Base("TestFeed"), "@perftest")+"@other"; a == b {
		t.Errorf("two packages share the name %s", a)
	}
}

// A Result that cannot be written is an error a program can read
// (WriteErr) and a test is failed with; the message of a session that
// ended early then says the partial result was not written, never "in ".
func TestStopCannotWrite(t *testing.T) {
	f := newFake()
	lose := losable(f)
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fastConfig(t)
	cfg.GiveUpAfter = 100 * time.Millisecond
	cfg.ResultsDir = filepath.Join(blocker, "results")
	s := startFake(t, f, cfg)
	rt := &recordingT{}
	s.t = rt
	if s.WriteErr() != nil {
		t.Error("a write error before Stop")
	}
	waitTicks(t, f, 3)
	lose()
	<-s.Done()
	r := s.Stop()
	err := s.WriteErr()
	if err == nil || !strings.Contains(err.Error(), cfg.ResultsDir) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("WriteErr() = %v, want the folder and the cause", err)
	}
	if r.Path != "" {
		t.Errorf("Path %q of a Result not written", r.Path)
	}
	text := strings.Join(rt.errs, "\n")
	if !strings.Contains(text, "session ended early: ") || !strings.Contains(text, "(the partial result was not written)") || !strings.Contains(text, err.Error()) {
		t.Errorf("the test was told:\n%s", text)
	}
}

// losable makes every batch of f fail as from a device gone, from the
// call of lose on.
func losable(f *fakeDevice) (lose func()) {
	var gone atomic.Bool
	f.fail = func(context.Context, []string) error {
		if gone.Load() {
			return errFakeGone
		}
		return nil
	}
	return func() { gone.Store(true) }
}

// Sessions of one name in one process (go test -count=2) get base.json,
// base.2.json: the second never takes the first's file.
func TestSessionsOfOneNameNumbered(t *testing.T) {
	cfg := fastConfig(t)
	var paths []string
	for range 2 {
		paths = append(paths, startFake(t, newFake(), cfg).Stop().Path)
	}
	base := result.Base(cfg.Name)
	if want := []string{filepath.Join(cfg.ResultsDir, base+".json"), filepath.Join(cfg.ResultsDir, base+".2.json")}; !slices.Equal(paths, want) {
		t.Errorf("two sessions wrote %q, want %q", paths, want)
	}
}
