package scenario_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/scenario"
)

// One tap by coordinates and one element lookup, each a round trip through
// the pure-Go adb server's forward to the simulated uiautomator2 server.
func BenchmarkTapAt(b *testing.B) {
	d := benchDriver(b)
	a := scenario.TapAt(200, 300)
	ctx := b.Context()
	for b.Loop() {
		if err := a.Do(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWaitFor(b *testing.B) {
	d := benchDriver(b)
	a := scenario.WaitFor(scenario.Text("perfgate demo"), time.Second)
	ctx := b.Context()
	for b.Loop() {
		if err := a.Do(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDriver(b *testing.B) *scenario.Driver {
	p := newPhoneTB(b, "smooth-scroll")
	d, err := scenario.Connect(b.Context(), p.dev, scenario.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	if _, err := scenario.MeasureStartup(b.Context(), p.dev, p.pkg, scenario.Cold, scenario.StartupOptions{}); err != nil {
		b.Fatal(err)
	}
	return d
}
