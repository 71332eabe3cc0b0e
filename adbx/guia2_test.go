package adbx_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/electricbubble/guia2"

	"github.com/perfgate/perfgate/simdevice"
)

// TestGuia2SessionThroughForward drives the simulated device's uiautomator2
// server with the real guia2 client through an adb forward, via both
// endpoints: session create, a read, and session delete.
func TestGuia2SessionThroughForward(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			tcpOnly(t, ep)
			d, _ := ep.open(t, newSim(t, simdevice.Config{}))
			ctx := ctxT(t, 20*time.Second)
			port, err := d.Forward(ctx, 6790)
			if err != nil {
				t.Fatal(err)
			}
			defer d.RemoveForward(ctx, port)
			// A plain loopback URL: guia2's "forward-to-" host form would
			// rewrite the shared http.DefaultClient's transport.
			drv, err := guia2.NewDriver(nil, "http://127.0.0.1:"+strconv.Itoa(port)+"/wd/hub")
			if err != nil {
				t.Fatalf("guia2 session create: %v", err)
			}
			size, err := drv.DeviceSize()
			if err != nil {
				t.Fatalf("window size: %v", err)
			}
			if size.Width <= 0 || size.Height <= size.Width {
				t.Errorf("window size %dx%d, want a portrait phone screen", size.Width, size.Height)
			}
			if err := drv.Quit(); err != nil {
				t.Errorf("guia2 session delete: %v", err)
			}
			if _, err := drv.DeviceSize(); err == nil {
				t.Errorf("window size after session delete: no error, want invalid session")
			}
		})
	}
}
