package perftest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace"
)

// Sessions of one name writing into one folder at once, their files
// claimed in any interleaving (here the first session's trace, the
// second's trace, stacks and Result, then the first's stacks and Result),
// each get one stem: a Result's links are always its own files. A Result
// written on its own meanwhile (a report's copy, another process) takes
// neither stem, though only one of its files is there yet.
func TestResultFilesStemInterleaved(t *testing.T) {
	dir := t.TempDir()
	a, b := &stem{}, &stem{}
	aTrace := mustClaim(t, a, dir, ".perfetto-trace", "\x0a\x02\x08\x01")
	lone := &Result{Name: "lone"}
	if err := lone.WriteInDir(dir, runBase); err != nil {
		t.Fatal(err)
	}
	bTrace := mustClaim(t, b, dir, ".perfetto-trace", "\x0a\x02\x08\x02")
	bStacks := mustClaim(t, b, dir, ".folded", "b;main 1\n")
	bResult := &Result{Name: "b", Causes: &CauseRun{StacksFile: filepath.Base(bStacks)}, Trace: &TraceInfo{File: bTrace}}
	if err := bResult.writeInDir(dir, runBase, b); err != nil {
		t.Fatal(err)
	}
	aStacks := mustClaim(t, a, dir, ".folded", "a;main 1\n")
	aResult := &Result{Name: "a", Causes: &CauseRun{StacksFile: filepath.Base(aStacks)}, Trace: &TraceInfo{File: aTrace}}
	if err := aResult.writeInDir(dir, runBase, a); err != nil {
		t.Fatal(err)
	}
	// A Result written again (a session's checkpoints, its final write)
	// keeps its stem.
	if err := aResult.writeInDir(dir, runBase, a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r     *Result
		stem  string
		files []string
	}{
		{aResult, runBase, []string{aTrace, aStacks}},
		{lone, runBase + ".2", nil},
		{bResult, runBase + ".3", []string{bTrace, bStacks}},
	} {
		if want := filepath.Join(dir, tc.stem+".json"); tc.r.Path != want {
			t.Errorf("Result %s written to %s, want %s", tc.r.Name, tc.r.Path, want)
		}
		for _, f := range tc.files {
			if got := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".folded"), ".perfetto-trace"); got != tc.stem {
				t.Errorf("Result %s (%s) links %s", tc.r.Name, filepath.Base(tc.r.Path), filepath.Base(f))
			}
		}
	}
	want := []string{runBase + ".2.json", runBase + ".3.folded", runBase + ".3.json", runBase + ".3.perfetto-trace",
		runBase + ".folded", runBase + ".json", runBase + ".perfetto-trace"}
	if got := dirFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("the folder holds %q, want %q", got, want)
	}
}

// mustClaim writes s under st with extension ext in dir.
func mustClaim(t *testing.T, st *stem, dir, ext, s string) string {
	t.Helper()
	p, err := st.claimString(dir, runBase, ext, s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

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
		base := resultBase("TestStem")
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
		_, count, _ := cutLast(sc.Text(), ' ')
		k, err := strconv.Atoi(count)
		if err != nil {
			t.Fatalf("%s: line %q", p, sc.Text())
		}
		n += k
	}
	return n
}
