package perftest_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// stallingPhone holds back the answer to one frame dump, once armed, for
// stall after the phone took it: a host too busy to read the answer for a
// while, as on a loaded machine. The dump says what the phone had drawn
// when it ran, not when the host read it.
type stallingPhone struct {
	*simdevice.Device
	stall   time.Duration
	stalled chan struct{} // gets a value as each stall begins
	mu      sync.Mutex
	armed   bool
}

// arm stalls the next frame dump, and forgets a stall that began unseen.
func (p *stallingPhone) arm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.stalled:
	default:
	}
	p.armed = true
}

func (p *stallingPhone) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	st := p.Device.Shell(ctx, cmd, stdin, stdout, stderr)
	if strings.Contains(cmd, "gfxinfo") {
		p.mu.Lock()
		armed := p.armed
		p.armed = false
		p.mu.Unlock()
		if armed {
			select {
			case p.stalled <- struct{}{}:
			default:
			}
			time.Sleep(p.stall)
		}
	}
	return st
}

// A step's Result, written once a frame poll after its end came back,
// holds every frame the step drew, however late the host read the polls:
//
//   - a poll sent before the step's end and read after it dumped the
//     frames before the end, so it is no poll after the end;
//   - so is a poll at the very time of the end;
//   - a poll sent just after the end and read only after Config.Settle had
//     passed dumped the frames at once, while the step's last frame was
//     still drawing, so the session polls again rather than give up on it.
//
// Steps end at offsets across a vsync, so that some end with a frame in
// flight (the test says how many did).
func TestCheckpointWaitsThroughAStalledPoll(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("smooth-scroll")
		if err != nil {
			t.Fatal(err)
		}
		dev, err := simdevice.New(simdevice.Config{API: 33, RefreshHz: 60, Workload: simtest.QuickStart(wl)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		ph := &stallingPhone{Device: dev, stall: 400 * time.Millisecond, stalled: make(chan struct{}, 1)}
		srv := adbtest.NewPipeServer(ph)
		t.Cleanup(srv.Close)
		d := srv.Open(dev.Serial())
		launch(t, d, dev)

		tk := newTicker()
		cfg := quirkConfig(t, tk)
		cfg.Causes.Off = true
		cfg.Interval = 90 * time.Millisecond // not a whole number of vsyncs: the steps end at vsync phases of all kinds
		cfg.Collectors = []perftest.Collector{perftest.CollectFrames}
		if cfg.Settle = 250 * time.Millisecond; ph.stall <= cfg.Settle {
			t.Fatalf("a stall of %v is within Settle", ph.stall)
		}
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		inFlight, steps := 0, 15
		for i := range steps {
			name := "step" + string(rune('a'+i))
			s.Begin(name)
			tk.wait(t, 3)
			switch i % 3 {
			case 0:
				// The step ends at the very time of the tick that just
				// came back, on the fake clock: its poll is no poll after
				// the end either (the session's first ticks all poll
				// frames). The next one is read after Settle.
				ph.arm()
				s.End()
			case 1:
				// The step ends a little before the next tick, whose poll
				// dumps the frames a few ms after the end; the host reads
				// it after Settle.
				time.Sleep(cfg.Interval - time.Duration(i+1)*2*time.Millisecond)
				s.End()
				ph.arm()
				<-ph.stalled
			case 2:
				// The next tick's poll dumps the frames before the end;
				// the host reads it after the end.
				time.Sleep(time.Duration(i) * time.Millisecond)
				ph.arm()
				<-ph.stalled
				s.End()
			}
			var ok bool
			for range 100 {
				tk.wait(t, 1)
				if st := onDisk(t, cfg.ResultsDir).Step(name); !st.Missing && st.NotMeasured[metrics.Frames] == "" {
					ok = true
					break
				}
			}
			if !ok {
				t.Fatalf("%s: no Result with its frames after 100 ticks", name)
			}
			r := onDisk(t, cfg.ResultsDir)
			st := r.Step(name)
			truth, _, late := truthInStep(r, st, dev.World().TruthFrames(), false)
			if got := metric(t, st, metrics.Frames); got != float64(len(truth)) || late > 0 {
				t.Errorf("%s, as written after a stalled poll: %v frames; the phone drew %d in it (%d after the last poll)", name, got, len(truth), late)
			}
			for _, f := range truth {
				if f.Present > st.DeviceEndNs {
					inFlight++
					break
				}
			}
		}
		s.Stop()
		t.Logf("%d of %d steps ended with a frame still drawing", inFlight, steps)
		if inFlight == 0 {
			t.Errorf("no step ended with a frame still drawing: the test proves nothing")
		}
	})
}
