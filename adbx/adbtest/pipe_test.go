package adbtest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// A server from NewPipeServer, in a testing/synctest bubble, serves the
// simulated phone on the bubble's clock: a shell that sleeps 5 s on the
// phone returns after 5 s of the bubble's time and none of the host's,
// pushes and pulls go through, and a forward reaches the phone's
// uiautomator2 server through the device's Dial.
func TestPipeServerInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dev := newSim(t, "smooth-scroll")
		srv := adbtest.NewPipeServer(dev)
		t.Cleanup(srv.Close)
		d := srv.Open("")
		ctx := context.Background()

		start, up := time.Now(), dev.World().Uptime()
		r, err := d.Shell(ctx, "sleep 5; echo done")
		if err != nil || r.Err("sleep") != nil || string(r.Stdout) != "done\n" {
			t.Fatalf("sleep 5: %q %v %v", r.Stdout, err, r.Err("sleep"))
		}
		if host, phone := time.Since(start), dev.World().Uptime()-up; host != 5*time.Second || phone != 5*time.Second {
			t.Errorf("sleep 5 took %v of the bubble's time, %v of the phone's; want 5s each", host, phone)
		}

		msg := bytes.Repeat([]byte("perfgate "), 50000)
		if err := d.Push(ctx, bytes.NewReader(msg), "/data/local/tmp/x", 0o644, time.Now()); err != nil {
			t.Fatal(err)
		}
		var back bytes.Buffer
		if err := d.Pull(ctx, "/data/local/tmp/x", &back); err != nil || !bytes.Equal(back.Bytes(), msg) {
			t.Fatalf("pull: %v, %d bytes back of %d", err, back.Len(), len(msg))
		}

		port, err := d.Forward(ctx, simdevice.UIAutomatorPort)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: &http.Transport{DialContext: d.Dial}}
		host, _, _ := net.SplitHostPort(d.Server())
		resp, err := c.Get("http://" + host + ":" + strconv.Itoa(port) + "/wd/hub/status")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("ready")) {
			t.Errorf("status through the forward: %s %s", resp.Status, body)
		}
		c.CloseIdleConnections()
		if err := d.RemoveForward(ctx, port); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Dial(ctx, "tcp", host+":"+strconv.Itoa(port)); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("dial a removed forward: %v, want connection refused", err)
		}
	})
}
