package simdevice_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/simdevice"
)

// Every random workload is valid, the same for the same seed, and has
// what it promises: causes of every kind across the seeds, ANRs, long
// runs and every refresh rate.
func TestRandomCauseWorkload(t *testing.T) {
	t.Parallel()
	kinds := map[string]int{}
	hz := map[float64]int{}
	long, anrs, pairs := 0, 0, 0
	for seed := range int64(500) {
		w := simdevice.RandomCauseWorkload(seed)
		if err := w.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		b, _ := json.Marshal(w)
		w2, err := simdevice.ParseWorkload(b)
		if err != nil || !reflect.DeepEqual(w, w2) || !reflect.DeepEqual(w, simdevice.RandomCauseWorkload(seed)) {
			t.Fatalf("seed %d: not the same workload twice (%v)", seed, err)
		}
		hz[w.RefreshHz]++
		phase := map[string]string{}
		for _, c := range w.Causes {
			kinds[c.Phase]++
			phase[c.Name] = c.Phase
		}
		ms := 0
		for _, p := range w.Phases {
			ms += p.DurationMs
			for _, j := range p.Janks {
				if j.ANR {
					anrs++
				}
				if phase[j.Cause] == "wait" && slices.ContainsFunc(p.Janks, func(o simdevice.Jank) bool {
					return o.At[0] == j.At[0]-1 && slices.Contains([]string{"sync", "commands", "swap"}, phase[o.Cause])
				}) {
					pairs++
				}
			}
		}
		if ms >= 60_000 {
			long++
		}
	}
	for _, k := range []string{"wait", "input", "animation", "layout", "draw", "sync", "commands", "swap"} {
		if kinds[k] == 0 {
			t.Errorf("no cause in phase %s: %v", k, kinds)
		}
	}
	if len(hz) != 4 || long < 25 || anrs < 150 || pairs < 50 {
		t.Errorf("over 500 seeds: refresh rates %v, %d runs of 60 s or more, %d ANRs, %d RenderThread frames before a message", hz, long, anrs, pairs)
	}
}

// Two workloads' causes never share a message or an app frame: each names
// its own cause.
func TestRandomCauseWorkloadDistinctCauses(t *testing.T) {
	t.Parallel()
	for seed := range int64(300) {
		w := simdevice.RandomCauseWorkload(seed)
		seen := map[string]string{}
		for _, c := range w.Causes {
			key := c.Handler + "/" + c.Callback
			if c.Phase != "wait" {
				key = fmt.Sprint(c.Stack)
			}
			if c.Stack == nil {
				continue
			}
			if o, ok := seen[key]; ok {
				t.Fatalf("seed %d: causes %s and %s alike (%s)", seed, o, c.Name, key)
			}
			seen[key] = c.Name
		}
	}
}

// A random workload of slow frames: its causes are messages of their own
// and work inside frames, whose stacks run through the app's package and
// a look-alike one.
func ExampleRandomCauseWorkload() {
	w := simdevice.RandomCauseWorkload(7)
	fmt.Println(w.Package, w.RefreshHz, "Hz,", len(w.Phases), "phases")
	for _, c := range w.Causes[:2] {
		fmt.Println(c.Name, c.Phase, c.Handler, c.Callback, c.Stack[len(c.Stack)-1])
	}
	// Output:
	// com.shop.carts 120 Hz, 4 phases
	// c0 wait android.os.Handler com.shop.carts.SyncView0$3 android.graphics.text.LineBreaker.computeLineBreaks
	// c1 wait android.os.Handler com.shop.carts.SpanManager1$3 com.shop.cart.CacheEngine.apply
}
