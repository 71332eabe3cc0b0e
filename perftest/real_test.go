package perftest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/perftest"
)

// TestRealDevice measures an app on an attached phone: ANDROID_SERIAL (or
// the only device) and PERFGATE_APP name them. It skips without both.
func TestRealDevice(t *testing.T) {
	app := os.Getenv("PERFGATE_APP")
	if app == "" {
		t.Skip("set PERFGATE_APP to an app running on the attached phone to measure it")
	}
	serial := testenv.RealDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := adbx.Open(ctx, adbx.Options{Serial: serial})
	if err != nil {
		t.Fatal(err)
	}
	s := perftest.Start(t, d, perftest.App(app), perftest.WithResultsDir(t.TempDir()))
	s.Step("idle", func() { time.Sleep(3 * time.Second) })
	r := s.Stop()
	st := r.Step("idle")
	t.Logf("device %s api %d %.0f Hz; clock ±%.2f ms; frames %d fps %.1f jank %d; cpu %.1f%%; pss %d KiB; notes %q",
		r.Device.Model, r.Device.API, r.Device.RefreshHz, r.Clock.UncertaintyMs,
		st.Frames().Frames, st.FPS(), st.Jank(), st.CPU().Mean, st.Memory().PSSMaxKB, r.Notes)
	if len(r.Samples) < 20 {
		t.Errorf("%d samples in 3 s", len(r.Samples))
	}
}
