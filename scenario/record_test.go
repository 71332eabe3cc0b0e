package scenario_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
)

// A recording that waited for its app (perfgate record -wait) fails when
// the app never started in it, saying so, in the Result on disk too; one
// whose app ran passes.
func TestRecordAppNeverStarted(t *testing.T) {
	t.Parallel()
	for _, started := range []bool{false, true} {
		simtest.Bubble(t, func(t *testing.T) {
			p := newPhone(t, server, "smooth-scroll", nil)
			ctx := ctxT(t, time.Minute)
			if started {
				if r, err := p.dev.Shell(ctx, "monkey -p "+p.pkg+" -c android.intent.category.LAUNCHER 1"); err != nil || r.ExitCode != 0 {
					t.Fatalf("monkey: %v %+v", err, r)
				}
			}
			sess, err := perftest.NewSession(ctx, p.dev, perftest.Config{Package: p.pkg, Name: "record", ResultsDir: t.TempDir(), WaitForApp: true})
			if err != nil {
				t.Fatal(err)
			}
			r, cut := scenario.Record(ctx, sess, "record", time.Second)
			if started {
				if r.Error != "" || len(r.Failed()) != 0 {
					t.Errorf("the app ran: error %q, failed %q", r.Error, r.Failed())
				}
				return
			}
			want := "record: app com.perfgate.demo never started while the session waited for it (-wait, Config.WaitForApp): nothing measured"
			if cut || r.Error != want || r.Step("record").ActionFailed != want {
				t.Errorf("cut %v, error %q, step %q; want %q", cut, r.Error, r.Step("record").ActionFailed, want)
			}
			disk, err := result.ReadResult(r.Path)
			if err != nil || disk.Error != want || len(disk.Failed()) == 0 {
				t.Errorf("on disk: %v, error %q, failed %q", err, disk.Error, disk.Failed())
			}
		})
	}
}
