package sections_test

import (
	"fmt"

	"github.com/perfgate/perfgate/trace/sections"
)

func Example() {
	var c sections.Collector
	// The markers trace.Analyze passes to trace.Options.Marker.
	c.Marker(1_000_000, 42, []byte("B|42|feed:bind"))
	c.Marker(4_000_000, 42, []byte("E|42"))
	c.Marker(9_000_000, 42, []byte("B|42|feed:bind"))
	c.Marker(10_000_000, 42, []byte("E|42"))
	ss, _ := sections.Slices(&c, []int32{42}, func(ns int64) (int64, bool) { return ns, true })
	st := sections.Measure(ss, sections.Spec{Name: "feed:%"}, 0, 20_000_000)
	fmt.Println(st.Count, st.FirstNs, st.MinNs, st.MaxNs, st.SumNs)
	// Output: 2 3000000 1000000 3000000 4000000
}
