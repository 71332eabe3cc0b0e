package simlab_test

import (
	"testing"

	"github.com/perfgate/perfgate/simlab"
)

// A served phone's line names its model, API level, refresh rate, speed,
// workload and the server that lists it.
func TestServedString(t *testing.T) {
	lab := simlab.Lab{Phones: []simlab.Phone{{Model: "Pixel 4a", API: 30, RefreshHz: 60, Speed: 0.6, Server: simlab.ServerGo}}}
	r := simlab.Start(t, lab)
	p := r.Phones[0]
	want := p.Dev.Serial() + ": Pixel 4a, API 30, 60 Hz, speed 0.6, " + p.Device.Workload.Name + " on adb server " + p.Server
	if got := p.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
