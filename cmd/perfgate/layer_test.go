package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
)

// fakeADB puts an adb on PATH that writes its arguments, one a line, to the
// file it returns, so a test sees what the host's shell handed adb.
func fakeADB(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + out + "\n"
	if err := os.WriteFile(filepath.Join(dir, "adb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return out
}

// deviceCommand runs cmd in the host's shell with the fake adb and returns
// what adb sends the device: the arguments after "shell", joined with
// spaces as adb joins them.
func deviceCommand(t *testing.T, args, cmd string) string {
	t.Helper()
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("sh -c %q: %v: %s", cmd, err, out)
	}
	b, err := os.ReadFile(args)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, w := range words {
		if w == "shell" {
			return strings.Join(words[i+1:], " ")
		}
	}
	t.Fatalf("adb got no shell command: %q", words)
	return ""
}

// The command `perfgate layer` prints saves the layer's frame times on a
// phone: run by the host's shell, joined by adb and run by the simulated
// phone's shell, it prints --latency rows of the app's frames. The
// unquoted form the README used to show is a syntax error on the device.
func TestLayerCommandWorksThroughAdbShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on the host")
	}
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	dev, srv := simtest.Serve(t, simdevice.Config{Workload: simtest.QuickStart(wl), API: 33, RefreshHz: 60})
	d := srv.Open(dev.Serial())
	simtest.Launch(t, d, dev)

	var stdout, stderr bytes.Buffer
	if err := run([]string{"layer", "-adb", srv.Addr, "-serial", dev.Serial(), "-package", wl.Package}, &stdout, &stderr); err != nil {
		t.Fatalf("perfgate layer: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "layer: SurfaceView[") || !strings.HasSuffix(lines[1], " > sf.txt") {
		t.Fatalf("perfgate layer printed %q, want the layer and a command", stdout.String())
	}
	layer := strings.TrimPrefix(lines[0], "layer: ")
	args := fakeADB(t)
	onDevice := deviceCommand(t, args, strings.TrimSuffix(lines[1], " > sf.txt"))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := d.Shell(ctx, onDevice)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("device ran %q: %v, exit %d: %s", onDevice, err, res.ExitCode, res.Stderr)
	}
	lat, err := surfaceflinger.ParseLatency(res.Stdout)
	if err != nil {
		t.Fatalf("%q: %v", onDevice, err)
	}
	if len(lat.Frames) == 0 {
		t.Fatalf("%q printed no frame: %q", onDevice, res.Stdout)
	}

	// The quotes of the old README command are lost on the way.
	onDevice = deviceCommand(t, args, "adb shell dumpsys SurfaceFlinger --latency '"+layer+"'")
	if res, err := d.Shell(ctx, onDevice); err == nil && res.ExitCode == 0 {
		t.Errorf("device ran the unquoted %q without an error: %q", onDevice, res.Stdout)
	}
}
