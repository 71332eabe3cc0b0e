package devicepool_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/simlab"
)

// BenchmarkLab measures one test (a 1.5 s scroll session) on one device of
// the lab, and eight such tests in parallel on the eight devices of two adb
// servers: the done-when goal is devices=8 within 1.5× of devices=1 per op
// (compare them with benchstat).
func BenchmarkLab(b *testing.B) {
	lab := simlab.Start(b, simlab.Spread(labSize))
	ctx := context.Background()
	p, err := devicepool.New(ctx, devicepool.Config{Servers: lab.Servers()})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range p.Members() {
		simtest.Launch(b, m.Device, lab.Phone(m.Server(), m.Serial()).Dev)
	}
	for _, n := range []int{1, labSize} {
		b.Run(fmt.Sprintf("devices=%d", n), func(b *testing.B) {
			for range b.N {
				var wg sync.WaitGroup
				errs := make(chan error, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						m, err := p.Acquire(ctx, fmt.Sprint("bench-", i), nil)
						if err != nil {
							errs <- err
							return
						}
						defer p.Release(m)
						s, err := perftest.NewSession(ctx, m.Device, perftest.Config{Package: simdevice.PresetPackage, ResultFile: "-",
							Collectors: []perftest.Collector{perftest.CollectFrames}, Interval: interval, Causes: noCauses})
						if err != nil {
							errs <- err
							return
						}
						s.Step("scroll", func() { time.Sleep(1500 * time.Millisecond) })
						if r := s.Stop(); r.Error != "" {
							errs <- fmt.Errorf("%s: %s", m, r.Error)
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					b.Error(err)
				}
			}
		})
	}
}
