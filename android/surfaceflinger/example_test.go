package surfaceflinger_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/surfaceflinger"
)

func ExampleParseLatency() {
	out := "16666667\n" +
		"100000000\t100000000\t100000000\n" +
		"116666667\t116666667\t116666667\n" +
		"0\t0\t0\n" + // a slot without a frame: dropped
		"133333334\t133333334\t133333334\n"
	lat, err := surfaceflinger.ParseLatency([]byte(out))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lat.RefreshPeriod, len(lat.Frames), lat.Dropped)
	// Output: 16666667 3 1
}

func ExamplePickLayer() {
	list := "com.example/com.example.Game#0\n" +
		"SurfaceView[com.example/com.example.Game]#0\n" +
		"SurfaceView[com.example/com.example.Game](BLAST)#0\n" +
		"Background for SurfaceView[com.example/com.example.Game]#0\n"
	layers, _ := surfaceflinger.ParseList([]byte(list))
	l, err := surfaceflinger.PickLayer(layers, "com.example")
	fmt.Println(l.Name, err)
	// Output: SurfaceView[com.example/com.example.Game](BLAST)#0 <nil>
}
