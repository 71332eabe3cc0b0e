package simlab_test

import (
	"fmt"

	"github.com/perfgate/perfgate/simlab"
)

// A lab file's phones, expanded: counts unrolled, serials given, speeds
// applied to their workloads.
func ExampleParse() {
	lab, err := simlab.Parse("lab.json", []byte(`{"phones": [
  {"model": "Pixel 8", "api": 34, "refresh_hz": 120},
  {"model": "Pixel 4a", "api": 30, "speed": 0.5, "server": "adb", "count": 2}
]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfgs, err := lab.Configs()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cfgs {
		fmt.Printf("%s: %s, API %d, speed %g, on %s; cold start %d ms\n", c.Device.Serial, c.Device.Model, c.Device.API, c.Speed, c.Server, c.Device.Workload.Startup.ColdMs)
	}
	// Output:
	// sim-1: Pixel 8, API 34, speed 1, on go; cold start 650 ms
	// sim-2: Pixel 4a, API 30, speed 0.5, on adb; cold start 1300 ms
	// sim-3: Pixel 4a, API 30, speed 0.5, on adb; cold start 1300 ms
}
