package report_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// -record re-records testdata/janky-scroll.json, the Result the golden
// tests read, from a session on the simulated phone.
var record = flag.Bool("record", false, "re-record testdata/janky-scroll.json from the simulated device")

const recorded = "testdata/janky-scroll.json"

// simSession measures the simulated phone running preset for one step of
// stepLen (plus a short idle step) and returns the Result and the frames
// the phone truly rendered.
func simSession(t *testing.T, preset string, stepLen time.Duration) (*result.Result, []simdevice.TruthFrame) {
	t.Helper()
	return simSessionTimes(t, preset, stepLen, 1)
}

// simSessionTimes is simSession with its two steps run n times over, as
// a test that repeats them in one session does: "scroll", "settle",
// "scroll#2", "settle#2", and so on. Each repeat is a run to Compare. The
// session runs in a bubble (simtest.Bubble), on the bubble's clock: each
// step lasts exactly its length however busy the host, and the truth is
// read there, before the phone closes.
func simSessionTimes(t *testing.T, preset string, stepLen time.Duration, n int) (res *result.Result, truth []simdevice.TruthFrame) {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	return simRun(t, wl, func(s *perftest.Session) {
		for range n {
			s.Step("scroll", func() { time.Sleep(stepLen) })
			s.Step("settle", func() { time.Sleep(stepLen / 4) })
		}
	})
}

// simRun runs a session of steps on the simulated phone running wl, in a
// bubble as simSessionTimes does.
func simRun(t *testing.T, wl *simdevice.Workload, steps func(s *perftest.Session)) (res *result.Result, truth []simdevice.TruthFrame) {
	t.Helper()
	dir := t.TempDir() // the test's, not the bubble's: the Result's files outlive the bubble
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := simDeviceOf(t, wl, simdevice.Quirks{})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s, err := perftest.NewSession(ctx, d, perftest.Config{Package: simdevice.PresetPackage, Name: "TestJankyScroll",
			ResultFile: filepath.Join(dir, "result.json"), Reporters: []result.Reporter{report.Reporter}})
		if err != nil {
			t.Fatalf("perftest.NewSession: %v", err)
		}
		steps(s)
		res = s.Stop()
		if res.Error != "" {
			t.Fatalf("session ended early: %s", res.Error)
		}
		truth = dev.World().TruthFrames()
	})
	if t.Failed() {
		t.FailNow()
	}
	return res, truth
}

// simDevice serves the simulated phone running preset, with quirks on,
// and launches its app. Call it in a bubble: the phone is served over
// in-memory pipes (simtest.ServePipe).
func simDevice(t testing.TB, preset string, q simdevice.Quirks) (*simdevice.Device, *adbx.Device) {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	return simDeviceOf(t, wl, q)
}

// simDeviceOf is simDevice with a workload of the caller's.
func simDeviceOf(t testing.TB, wl *simdevice.Workload, q simdevice.Quirks) (*simdevice.Device, *adbx.Device) {
	t.Helper()
	dev, srv := simtest.ServePipe(t, simdevice.Config{API: 33, RefreshHz: 60, Workload: simtest.QuickStart(wl), Serial: "sim-report", Model: "Pixel 6", Quirks: q})
	d := srv.Open(dev.Serial())
	simtest.Launch(t, d, dev)
	return dev, d
}

func TestRecordJankyScroll(t *testing.T) {
	if !*record {
		t.Skip("run with -record to re-record " + recorded)
	}
	r, _ := simSession(t, "janky-scroll", 3*time.Second)
	r.Path = ""
	if err := r.WriteFile(recorded); err != nil {
		t.Fatal(err)
	}
}

// loadRecorded reads the recorded janky-scroll Result.
func loadRecorded(t testing.TB) *result.Result {
	t.Helper()
	r, err := result.ReadResult(recorded)
	if err != nil {
		t.Fatalf("%v (run 'go test ./report -run TestRecordJankyScroll -record' to record it)", err)
	}
	r.Path = "" // the report must not depend on where the checkout is
	return r
}

// A live session with PERFGATE_REPORT set writes its HTML, Markdown and
// Result into that directory, and an index linking it, when it is given
// report.Reporter.
func TestSessionWritesReportsFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(report.EnvReportDir, dir)
	r, _ := simSession(t, "smooth-scroll", 600*time.Millisecond)
	for _, ext := range []string{".html", ".md", ".json"} {
		b, err := os.ReadFile(filepath.Join(dir, "TestJankyScroll@report"+ext))
		if err != nil {
			t.Fatalf("session did not write its report: %v", err)
		}
		if ext == ".md" && !strings.Contains(string(b), "scroll") {
			t.Errorf("Markdown lacks the step:\n%s", b)
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), `href="TestJankyScroll@report.html"`) {
		t.Errorf("index does not link the session:\n%s", index)
	}
	if got, err := result.ReadResult(filepath.Join(dir, "TestJankyScroll@report.json")); err != nil || len(got.Frames) != len(r.Frames) {
		t.Errorf("Result in the report dir: %v, %d frames (session had %d)", err, len(got.Frames), len(r.Frames))
	}
}
