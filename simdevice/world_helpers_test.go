package simdevice

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a host clock that moves only when a test says so.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testBoot is the uptime every test world starts at: 3h17m, on the 60 Hz
// and 120 Hz vsync grids.
const testBoot = 3*time.Hour + 17*time.Minute

// newTestWorld builds a world on a fake clock with no ticker.
func newTestWorld(t testing.TB, cfg Config) (*World, *fakeClock) {
	t.Helper()
	if cfg.API == 0 {
		cfg.API = 33
	}
	clk := &fakeClock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	w, err := newWorldWith(cfg, worldOptions{
		now:        clk.now,
		sleep:      func(ctx context.Context, d time.Duration) error { clk.advance(d); return nil },
		bootUptime: testBoot,
		background: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w, clk
}

func wdumpsys(w *World, args ...string) string {
	var o, e bytes.Buffer
	w.Dumpsys(args, &o, &e)
	return o.String()
}

func wlaunch(t testing.TB, w *World) {
	t.Helper()
	var o, e bytes.Buffer
	if st := w.Monkey(context.Background(), strings.Fields("-p "+w.Package()+" -c android.intent.category.LAUNCHER 1"), &o, &e); st != 0 {
		t.Fatalf("monkey: %d %s %s", st, o.String(), e.String())
	}
}

func mustPreset(t testing.TB, name string) *Workload {
	t.Helper()
	p, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
