package simdevice_test

import (
	"fmt"
	"os"

	"github.com/perfgate/perfgate/simdevice"
)

// A preset is a plain Go value: change it before handing it to the device.
func ExamplePreset() {
	wl, err := simdevice.Preset("janky-scroll")
	if err != nil {
		panic(err)
	}
	for _, j := range wl.Phases[0].Janks {
		fmt.Printf("frame %v lasts %d vsyncs\n", j.At, j.Vsyncs)
	}
	// Output:
	// frame [30] lasts 6 vsyncs
	// frame [90] lasts 8 vsyncs
	// frame [150] lasts 3 vsyncs
}

// Workloads also load from JSON; errors name the file and the field.
func ExampleParseWorkload() {
	_, err := simdevice.ParseWorkload([]byte(`{"package": "com.example", "uid": 10100, "activity": ".Main",
		"startup": {"cold_ms": 800}, "launch": "scroll",
		"phases": [{"name": "scrol", "every_vsyncs": 1}]}`))
	fmt.Println(err)
	// Output:
	// invalid workload: launch: no phase named "scroll"
}

func ExamplePresetNames() {
	fmt.Println(simdevice.PresetNames())
	// Output:
	// [chatty-network crash-on-tap janky-feed janky-scroll memory-leak slow-start smooth-scroll]
}

// The World behind a device answers dumpsys and /proc as the phone would;
// before the app is launched it has no process.
func ExampleWorld_Dumpsys() {
	d, err := simdevice.New(simdevice.Config{API: 34, Workload: mustPreset("janky-scroll")})
	if err != nil {
		panic(err)
	}
	defer d.Close()
	w := d.World()
	w.Dumpsys([]string{"gfxinfo", w.Package(), "framestats"}, os.Stdout, os.Stderr)
	fmt.Println("frames so far:", w.Truth().Frames)
	// Output:
	// No process found for: com.perfgate.demo
	// frames so far: 0
}

func mustPreset(name string) *simdevice.Workload {
	w, err := simdevice.Preset(name)
	if err != nil {
		panic(err)
	}
	return w
}
