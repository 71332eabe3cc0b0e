package adbtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electricbubble/gadb"
	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

var _ adbtest.Device = (*simdevice.Device)(nil)

func newSim(t *testing.T, preset string) *simdevice.Device {
	t.Helper()
	w, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// TestSimdeviceStockADB drives the simulated phone through the stock adb
// server, as a developer does with `perfgate simdevice`.
func TestSimdeviceStockADB(t *testing.T) {
	dev := newSim(t, "janky-scroll")
	d := adbtest.NewAdbd(dev)
	defer d.Close()
	adb := adbtest.StartADB(t)
	serial := adb.Connect(d.Addr)
	pkg := simdevice.PresetPackage
	shell := func(args ...string) string {
		t.Helper()
		return adb.Run(append([]string{"-s", serial, "shell"}, args...)...)
	}

	t.Logf("am start: %s", shell("am", "start", "-W", "-n", pkg+"/.MainActivity"))
	pid := strings.TrimSpace(shell("pidof", pkg))
	if _, err := strconv.Atoi(pid); err != nil {
		t.Errorf("pidof %s = %q, want a pid", pkg, pid)
	}
	if out := shell("cat", "/proc/stat"); !regexp.MustCompile(`^cpu  \d+ \d+ \d+ \d+`).MatchString(out) {
		t.Errorf("cat /proc/stat = %.100q", out)
	}
	if out := shell("dumpsys", "gfxinfo", pkg, "framestats"); !strings.Contains(out, "---PROFILEDATA---") {
		t.Errorf("dumpsys gfxinfo framestats has no PROFILEDATA section: %.300q", out)
	}
	if out := shell("dumpsys", "meminfo", pkg); !strings.Contains(out, "TOTAL") {
		t.Errorf("dumpsys meminfo has no TOTAL: %.300q", out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := adb.Command(ctx, "-s", serial, "shell", "echo out; echo err >&2; exit 3")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 || stdout.String() != "out\n" || stderr.String() != "err\n" {
		t.Errorf("adb shell 'echo out; echo err >&2; exit 3': stdout %q stderr %q exit %d (%v)", stdout.String(), stderr.String(), code, err)
	}

	dir := t.TempDir()
	content := make([]byte, 1<<20+4097)
	for i := range content {
		content[i] = byte(i*7 + i>>11)
	}
	src := filepath.Join(dir, "payload.bin")
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	adb.Run("-s", serial, "push", src, "/data/local/tmp/payload.bin")
	adb.Run("-s", serial, "pull", "/data/local/tmp/payload.bin", filepath.Join(dir, "back.bin"))
	if got, err := os.ReadFile(filepath.Join(dir, "back.bin")); err != nil || !bytes.Equal(got, content) {
		t.Errorf("push/pull round trip: %d bytes of %d (%v)", len(got), len(content), err)
	}

	// uiautomator2's port, through adb forward.
	port := strings.TrimSpace(adb.Run("-s", serial, "forward", "tcp:0", "tcp:6790"))
	checkUIA2(t, port)
}

// TestOpen checks that each endpoint's ready-to-use device is the one it
// serves: the pure-Go server's, whatever $ANDROID_SERIAL names, and the
// stock server's, once it joined the device's adbd.
func TestOpen(t *testing.T) {
	t.Setenv("ANDROID_SERIAL", "emulator-5554") // a developer's phone
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := adbtest.NewServer(newSim(t, "smooth-scroll"))
	defer srv.Close()
	a := adbtest.StartADB(t)
	viaADB, adbd := a.Serve(t, newSim(t, "smooth-scroll"))
	for name, d := range map[string]*adbx.Device{"server": srv.Open(""), "adb": viaADB} {
		r, err := d.Shell(ctx, "getprop ro.build.version.sdk")
		if err != nil || string(r.Stdout) != "33\n" {
			t.Errorf("%s: %s: getprop = %q, %v; want the simulated phone's 33", name, d.Serial(), r.Stdout, err)
		}
	}
	if n := adbd.Streams(); n == 0 {
		t.Error("the adbd served no stream, yet the shell went through the stock server")
	}
	two := adbtest.NewServer(&adbtest.FakeDevice{SerialNo: "a"}, &adbtest.FakeDevice{SerialNo: "b"})
	defer two.Close()
	if d := two.Open("b"); d.Serial() != "b" {
		t.Errorf("Open(b) opened %s", d.Serial())
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "2 devices attached") {
			t.Errorf("Open(\"\") with two devices: panic %v, want one saying 2 devices are attached", r)
		}
	}()
	two.Open("")
}

// checkUIA2 asks the uiautomator2 server behind a forwarded port for its
// status.
func checkUIA2(t *testing.T, port string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://127.0.0.1:" + port + "/wd/hub/status")
	if err != nil {
		t.Fatalf("uiautomator2 through adb forward: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var status struct {
		Value struct {
			Ready bool `json:"ready"`
		} `json:"value"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &status) != nil || !status.Value.Ready {
		t.Errorf("GET /wd/hub/status: %s %s", resp.Status, body)
	}
}

// TestSimdeviceHostServer drives the simulated phone through the pure-Go
// server with gadb, no adb binary involved.
func TestSimdeviceHostServer(t *testing.T) {
	dev := newSim(t, "smooth-scroll")
	s := adbtest.NewServer(dev)
	defer s.Close()
	client, err := gadb.NewClientWith("127.0.0.1", s.Port())
	if err != nil {
		t.Fatal(err)
	}
	devices, err := client.DeviceList()
	if err != nil || len(devices) != 1 || devices[0].Serial() != dev.Serial() {
		t.Fatalf("DeviceList = %v, %v", devices, err)
	}
	d := devices[0]
	if out, err := d.RunShellCommand("cat /proc/stat"); err != nil || !strings.HasPrefix(out, "cpu ") {
		t.Errorf("cat /proc/stat = %.80q, %v", out, err)
	}
	if out, err := d.RunShellCommand("getprop", "ro.build.version.sdk"); err != nil || out != "33\n" {
		t.Errorf("getprop ro.build.version.sdk = %q, %v", out, err)
	}
	content := bytes.Repeat([]byte("perfgate\x00\xff"), 150000)
	if err := d.Push(bytes.NewReader(content), "/data/local/tmp/x.bin", time.Now()); err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if err := d.Pull("/data/local/tmp/x.bin", &back); err != nil || !bytes.Equal(back.Bytes(), content) {
		t.Errorf("pull: %d bytes of %d, %v", back.Len(), len(content), err)
	}
	entries, err := d.List("/data/local/tmp")
	if err != nil || !containsName(entries, "x.bin") {
		t.Errorf("List(/data/local/tmp) = %v, %v", entries, err)
	}
	l, err := freeLocalPort()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Forward(l, 6790); err != nil {
		t.Fatal(err)
	}
	checkUIA2(t, strconv.Itoa(l))
	if err := d.ForwardKill(l); err != nil {
		t.Error(err)
	}
	if n := s.Streams(dev.Serial()); n < 6 {
		t.Errorf("Streams = %d, want at least the 6 services opened", n)
	}
}

func containsName(entries []gadb.DeviceFileInfo, name string) bool {
	for _, e := range entries {
		if e.Name == name {
			return true
		}
	}
	return false
}

// freeLocalPort returns a loopback port that was free a moment ago, outside
// the emulator range.
func freeLocalPort() (int, error) {
	for range 10 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if p < 5555 || p > 5585 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port")
}
