package devicepool_test

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/simlab"
)

// A pool over a lab of simulated phones: a test leases a device (Lease in
// a test; Acquire and Release elsewhere), measures on it, and gives it
// back.
func Example() {
	lab, err := simlab.Serve(simlab.Lab{Phones: []simlab.Phone{
		{Model: "Pixel 8", API: 34},
		{Model: "Pixel 4a", API: 30, Speed: 0.5},
	}}, simlab.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lab.Close()
	ctx := context.Background()
	p, err := devicepool.New(ctx, devicepool.Config{Servers: lab.Servers(), Filter: devicepool.Filter{MinAPI: 30}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range p.Members() {
		fmt.Printf("%s, API %d\n", m.Facts.Name(), m.Facts.API)
	}
	m, err := p.Acquire(ctx, "TestScroll", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("leased", m.Serial())
	// perftest.Start(t, m.Device, perftest.App("com.example.feed")) …
	if err := p.Release(m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Google Pixel 8, API 34
	// Google Pixel 4a, API 30
	// leased sim-1
}
