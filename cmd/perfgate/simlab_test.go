package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/devicepool"
)

// TestSimdeviceLab: `perfgate simdevice -count 4 -connect` serves four
// phones of four models, two from its own pure-Go adb server and two joined
// to the user's stock adb server, and prints the servers a pool reads;
// -servers-file holds them too while it serves, and goes when it stops.
func TestSimdeviceLab(t *testing.T) {
	a := adbtest.StartADB(t)
	t.Setenv("ADB_SERVER_SOCKET", "tcp:"+a.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // stops the command should the test fail before it waits for it
	old := interruptContext
	interruptContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { interruptContext = old })
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	file := filepath.Join(t.TempDir(), "lab.servers")
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"simdevice", "-count", "4", "-connect", "-servers-file", file}, stdout, stderr)
	}()
	m := waitOutput(t, stdout, regexp.MustCompile(devicepool.EnvServers+`=(\S+)`), done, 2*time.Minute, stderr)
	servers := strings.Split(m[1], ",")
	waitOutput(t, stdout, regexp.MustCompile("stop with Ctrl-C"), done, 2*time.Minute, stderr)
	if b, err := os.ReadFile(file); err != nil || string(b) != m[1]+"\n" {
		t.Errorf("-servers-file holds %q (%v), want the printed servers %q", b, err, m[1])
	}
	p, err := devicepool.New(context.Background(), devicepool.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]bool{}
	perServer := map[string]int{}
	for _, m := range p.Members() {
		models[m.Facts.Name()] = true
		perServer[m.Server()]++
	}
	if len(servers) != 2 || servers[1] != a.Addr() || len(models) != 4 || perServer[servers[0]] != 2 || perServer[servers[1]] != 2 {
		t.Errorf("servers %v, models %v, devices per server %v\n%s", servers, models, perServer, stdout)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("simdevice: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("-servers-file after the lab stopped: %v, want it gone", err)
	}
	if !strings.Contains(stdout.String(), "sim-2: Pixel 4a, API 30, 60 Hz, speed 0.6, janky-scroll on adbd 127.0.0.1:") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
