package perftest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// callCounter counts a session's round trips to the phone.
type callCounter struct {
	device
	n atomic.Int64
}

func (d *callCounter) batch(ctx context.Context, cmds []string) ([]adbx.Result, error) {
	d.n.Add(1)
	return d.device.batch(ctx, cmds)
}

// BenchmarkStepWrite is the cost of writing the Result as a step ends, for
// sessions of 10 s, 1 min and 5 min of a 60 Hz scroll polled every 100 ms
// with every collector (ten steps each): ns/op is one write, as End makes
// it (the summaries of the steps so far, JSON, a temporary file synced and
// renamed over the Result); lock-ns/write is the part taken with the
// session's lock held, which a tick waits for; bytes/write is the file's
// size; roundtrips/write counts the phone's round trips a write made
// (none: it writes what the lanes read).
func BenchmarkStepWrite(b *testing.B) {
	for _, secs := range []int{10, 60, 300} {
		b.Run(fmt.Sprintf("session=%ds", secs), func(b *testing.B) {
			d, dev := launchedSim(b, "janky-scroll", 60, nil)
			cc := &callCounter{device: wrapAdbx(d)}
			s, err := newSession(context.Background(), cc, Config{
				Package: simdevice.PresetPackage, Name: "BenchmarkStepWrite", ResultsDir: b.TempDir(),
				Interval: time.Hour, SlowInterval: time.Hour, Settle: time.Millisecond,
			})
			if err != nil {
				b.Fatal(err)
			}
			s.cancel()
			s.lanes.Wait()
			// The phone's clock goes 100 ms a tick, the app drawing six
			// frames in each; every step's end writes the Result.
			ctx := context.Background()
			ticks := secs * 10
			for i := range ticks {
				if i%(ticks/10) == 0 {
					s.Begin("step")
				}
				dev.World().Skip(100 * time.Millisecond)
				if err := s.tick(ctx, -1); err != nil {
					b.Fatal(err)
				}
				if i%10 == 0 {
					s.slowTick(ctx)
				}
			}
			s.End()
			defer s.Stop()
			calls0 := cc.n.Load()
			var locked time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				s.mu.Lock()
				snap := s.checkpointLocked("step")
				s.mu.Unlock()
				locked += time.Since(t0)
				s.writeCheckpoint(snap)
			}
			b.StopTimer()
			if s.ckErr != nil {
				b.Fatal(s.ckErr)
			}
			fi, err := os.Stat(s.res.Path)
			if err != nil {
				// The checkpoint, not s.res, knows its path.
				fi, err = os.Stat(s.cfg.resultsDir() + "/" + result.Base(s.cfg.Name) + ".json")
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(locked.Nanoseconds())/float64(b.N), "lock-ns/write")
			b.ReportMetric(float64(fi.Size()), "bytes/write")
			b.ReportMetric(float64(cc.n.Load()-calls0)/float64(b.N), "roundtrips/write")
			s.mu.Lock()
			frames, samples := len(s.res.Frames), len(s.res.Samples)
			s.mu.Unlock()
			b.ReportMetric(float64(frames), "frames")
			b.ReportMetric(float64(samples), "samples")
		})
	}
}
