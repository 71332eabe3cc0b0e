package perftest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace"
)

// A session on a simulated phone, with a Perfetto trace and its main
// thread sampled, writes its Result, trace and folded stacks under one
// stem, and each is its own: the trace is the size the Result says and of
// the phone and app the Result names, the folded stacks hold as many
// samples as the Result counts. The folder already holds, under the first
// stem, a user's files named as a trace and as folded stacks (never
// replaced), and under the second the Result of a run going on: the
// session takes the third stem for all its files.
func TestSessionFilesShareStem(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		skipWithoutLocks(t)
		wl, err := simdevice.Preset("janky-feed")
		if err != nil {
			t.Fatal(err)
		}
		dev, err := simdevice.New(simdevice.Config{API: 33, Workload: wl, Serial: "sim-stem"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		srv := adbtest.NewPipeServer(dev)
		t.Cleanup(srv.Close)
		d := srv.Open(dev.Serial())

		dir := t.TempDir()
		base := result.Base("TestStem")
		mine := map[string]string{
			writeFile(t, dir, base+".perfetto-trace", "my notes on a trace\n"):      "my notes on a trace\n",
			writeFile(t, dir, base+".folded", "my notes, named as folded stacks\n"): "my notes, named as folded stacks\n",
		}
		live := writeFile(t, dir, base+".2.json", resultJSON(t, "a run going on", "", ""))
		release, err := filelock.Hold(live)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
		mine[live] = resultJSON(t, "a run going on", "", "")

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if r, err := d.Shell(ctx, "am start -W -n "+wl.Package+"/.MainActivity"); err != nil || r.ExitCode != 0 {
			t.Fatalf("am start: %v %+v", err, r)
		}
		s, err := NewSession(ctx, d, Config{Package: wl.Package, Name: "TestStem", ResultsDir: dir, Trace: &TraceConfig{}})
		if err != nil {
			t.Fatal(err)
		}
		s.Step("scroll", func() {
			// Until the phone has drawn 30 frames in the step.
			for n := len(dev.World().TruthFrames()); len(dev.World().TruthFrames()) < n+30 && ctx.Err() == nil; {
				time.Sleep(10 * time.Millisecond)
			}
		})
		r := s.Stop()
		stem := filepath.Join(dir, base+".3")
		if r.Path != stem+".json" {
			t.Errorf("Result written to %s, want %s", r.Path, stem+".json")
		}
		if r.Trace == nil || r.Trace.File == "" {
			t.Fatalf("Result %s has no trace: %+v", r.Path, r.Trace)
		}
		if r.Trace.File != stem+".perfetto-trace" {
			t.Errorf("Result %s links the trace %s, want %s", r.Path, r.Trace.File, stem+".perfetto-trace")
		}
		f, err := os.Open(r.Trace.File)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		a, err := trace.Analyze(f, trace.Options{Package: wl.Package})
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != r.Trace.SizeBytes || a.SDK != r.Device.API || len(a.AppPIDs) == 0 || !strings.Contains(a.Device, "/SIM1."+strconv.Itoa(r.Device.API)+"/") {
			t.Errorf("trace %s: %d bytes (Result: %d), SDK %d (Result: API %d), app pids %v, device %q",
				r.Trace.File, fi.Size(), r.Trace.SizeBytes, a.SDK, r.Device.API, a.AppPIDs, a.Device)
		}
		// The sampler starts at the session's first tick: a host too busy to
		// run it before Stop leaves no stacks, and says so.
		switch {
		case r.Causes == nil || r.Causes.StacksFile == "":
			t.Logf("no folded stacks (samples %+v; notes %q)", r.Causes, r.Notes)
		case filepath.Join(dir, r.Causes.StacksFile) != stem+".folded":
			t.Errorf("Result %s links the folded stacks %s", r.Path, r.Causes.StacksFile)
		default:
			if n := foldedCount(t, filepath.Join(dir, r.Causes.StacksFile)); n != r.Causes.Samples {
				t.Errorf("%s holds %d samples, the Result counts %d", r.Causes.StacksFile, n, r.Causes.Samples)
			}
		}
		for p, want := range mine {
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("%s now holds %q", filepath.Base(p), b)
			}
		}
	})
}

// foldedCount sums the counts of a folded stacks file.
func foldedCount(t *testing.T, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		count := sc.Text()[strings.LastIndexByte(sc.Text(), ' ')+1:]
		k, err := strconv.Atoi(count)
		if err != nil {
			t.Fatalf("%s: line %q", p, sc.Text())
		}
		n += k
	}
	return n
}
