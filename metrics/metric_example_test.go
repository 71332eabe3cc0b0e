package metrics_test

import (
	"fmt"

	"github.com/perfgate/perfgate/metrics"
)

// The median and p90 of five CPU ticks, by the nearest-rank method.
func ExampleNearestRank() {
	ticks := []float64{6.1, 7.9, 6.4, 12.5, 6.8}
	fmt.Println(metrics.NearestRank(ticks, 50), metrics.NearestRank(ticks, 90))
	// Output: 6.8 12.5
}

// Iterations of a step are one step to budgets and comparisons.
func ExampleBaseStep() {
	for _, name := range []string{"scroll", "scroll#2", "open #1 story"} {
		fmt.Println(metrics.BaseStep(name))
	}
	// Output:
	// scroll
	// scroll
	// open #1 story
}
