package perftest_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// A step longer than any device call's default deadline keeps its
// stacks: the recording lasts as long as the session, and the step's
// samples are as many as the phone's truth of the main thread's time on a
// CPU in the step at the sampling rate (cpu-clock samples the thread while
// it runs), within 2 %.
func TestStacksLongStep(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{12 * time.Second, 60 * time.Second} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) { stacksLongStep(t, d) })
		})
	}
}

func stacksLongStep(t *testing.T, d time.Duration) {
	dev, ad := causeDevice(t, 33, 60, simdevice.Quirks{}, nil)
	const hz = 500
	s := perftest.Start(t, ad, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(),
		WaitForApp: true, Causes: perftest.CauseOptions{SampleHz: hz}}))
	launchCold(t, s, ad, dev)
	w := dev.World()
	s.Step("scroll", func() {
		end := w.Uptime() + d
		for w.Uptime() < end {
			time.Sleep(50 * time.Millisecond)
		}
	})
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session failed: %s", r.Error)
	}
	st := r.Step("scroll")
	if st.Causes == nil {
		t.Fatal("no causes")
	}
	if why := st.Causes.NotMeasured[causes.SourceStacks]; why != "" {
		t.Fatalf("stacks not measured in a %v step: %s (notes %q)", d, why, r.Notes)
	}
	cpu := w.TruthMainRunning(time.Duration(st.DeviceStartNs), time.Duration(st.DeviceEndNs))
	got := foldedStepSamples(t, filepath.Join(filepath.Dir(r.Path), r.Causes.StacksFile), "scroll")
	want := cpu.Seconds() * hz
	t.Logf("%v step: %d samples; the main thread ran %v: %.0f at %d Hz", d, got, cpu, want, hz)
	if math.Abs(float64(got)-want) > 0.02*want {
		t.Errorf("%v step: %d samples, want %.0f ± 2 %% (the main thread ran %v at %d Hz)", d, got, want, cpu, hz)
	}
}

// foldedStepSamples counts the samples of step in a folded stacks file.
func foldedStepSamples(t *testing.T, path, step string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("folded stacks: %v", err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, step+";") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		k, err := strconv.Atoi(line[i+1:])
		if err != nil {
			t.Fatalf("folded stacks %s: %q: %v", path, line, err)
		}
		n += k
	}
	if err := sc.Err(); err != nil {
		t.Fatal(fmt.Errorf("folded stacks %s: %w", path, err))
	}
	return n
}
