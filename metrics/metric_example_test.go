package metrics_test

import (
	"fmt"

	"github.com/perfgate/perfgate/metrics"
)

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
