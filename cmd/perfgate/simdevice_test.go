package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/simdevice"
)

// syncBuffer is a bytes.Buffer that the command and the test share.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed by the next Write, when a test waits for one
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// next returns a channel that the next Write closes: a test takes it
// before it reads what was written, and waits on it for more.
func (s *syncBuffer) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote == nil {
		s.wrote = make(chan struct{})
	}
	return s.wrote
}

// waitOutput waits until the command has written a line that re matches to
// out and returns the match, failing the test if the command ends first
// or writes no such line within limit.
func waitOutput(t *testing.T, out *syncBuffer, re *regexp.Regexp, done <-chan error, limit time.Duration, stderr fmt.Stringer) []string {
	t.Helper()
	timeout := time.After(limit)
	for {
		wrote := out.next()
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		select {
		case err := <-done:
			t.Fatalf("the command exited early: %v\nstdout: %s\nstderr: %s", err, out, stderr)
		case <-timeout:
			t.Fatalf("no line matching %s in %v: %s", re, limit, out)
		case <-wrote:
		}
	}
}

// startSimdevice runs the command in the background and returns the address
// it serves and a stop function that interrupts it and returns its error.
func startSimdevice(t *testing.T, args ...string) (addr string, stdout *syncBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // stops the command should the test fail before it waits for it
	old := interruptContext
	interruptContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { interruptContext = old })

	stdout = &syncBuffer{}
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(append([]string{"simdevice", "--listen", "127.0.0.1:0"}, args...), stdout, &stderr)
	}()
	// The whole start-up message, through its last line: the lines after
	// the address (noise, replay) are written after it.
	addr = waitOutput(t, stdout, regexp.MustCompile(`adb connect (127\.0\.0\.1:\d+)\n(?s:.*)stop with Ctrl-C\n`), done, 10*time.Second, &stderr)[1]
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("simdevice did not stop after the interrupt")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return addr, stdout, stop
}

// handshake speaks CNXN to addr as an adb host and returns the banner.
func handshake(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	payload := []byte("host::\x00")
	var sum uint32
	for _, b := range payload {
		sum += uint32(b)
	}
	const cnxn = 0x4e584e43
	hdr := make([]byte, 0, 24)
	for _, v := range []uint32{cnxn, 0x01000001, 1 << 20, uint32(len(payload)), sum, cnxn ^ 0xffffffff} {
		hdr = binary.LittleEndian.AppendUint32(hdr, v)
	}
	if _, err := c.Write(append(hdr, payload...)); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 24)
	if _, err := io.ReadFull(c, reply); err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(reply) != cnxn {
		t.Fatalf("reply % x is not CNXN", reply[:4])
	}
	banner := make([]byte, binary.LittleEndian.Uint32(reply[12:]))
	if _, err := io.ReadFull(c, banner); err != nil {
		t.Fatal(err)
	}
	return string(banner)
}

func TestSimdeviceServesAndStops(t *testing.T) {
	truth := filepath.Join(t.TempDir(), "truth.jsonl")
	addr, stdout, stop := startSimdevice(t, "--api", "30", "--workload", "janky-scroll", "--truth", truth, "--serial", "sim-e2e")
	banner := handshake(t, addr)
	if !strings.HasPrefix(banner, "device::ro.product.name=") || !strings.Contains(banner, "features=") || !strings.Contains(banner, "shell_v2") {
		t.Errorf("banner %q", banner)
	}
	if !strings.Contains(stdout.String(), "API 30") || !strings.Contains(stdout.String(), "sim-e2e") {
		t.Errorf("start-up message %q lacks the API level or serial", stdout.String())
	}
	if err := stop(); err != nil {
		t.Fatalf("simdevice after interrupt: %v", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("still listening on %s after the interrupt", addr)
	}
	if _, err := os.Stat(truth); err != nil {
		t.Errorf("truth file: %v", err)
	}
}

// TestSimdeviceStockADB joins the command's device with the stock adb and
// runs shell commands through it.
func TestSimdeviceStockADB(t *testing.T) {
	truth := filepath.Join(t.TempDir(), "truth.jsonl")
	addr, _, stop := startSimdevice(t, "--workload", "janky-scroll", "--truth", truth)
	adb := adbtest.StartADB(t)
	serial := adb.Connect(addr)
	if out := adb.Run("-s", serial, "shell", "echo", "hello"); out != "hello\n" {
		t.Errorf("adb shell echo hello = %q", out)
	}
	if out := adb.Run("-s", serial, "shell", "cat", "/proc/stat"); !strings.HasPrefix(out, "cpu ") {
		t.Errorf("adb shell cat /proc/stat = %.80q, want it to start with the cpu line", out)
	}
	adb.Run("-s", serial, "shell", "am", "start", "-W", "-n", simdevice.PresetPackage+"/.MainActivity")
	if out := adb.Run("-s", serial, "shell", "input", "swipe", "500", "1500", "500", "300", "300"); out != "" {
		t.Logf("input swipe: %q", out)
	}
	// The truth is flushed at least once a second: wait for the launch's
	// and the swipe's lines rather than for a second.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(truth)
		if bytes.Count(b, []byte("\n")) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("truth line %d is not JSON: %q", i+1, l)
		}
	}
	if len(lines) < 2 {
		t.Errorf("truth file holds %d lines after a launch and a swipe: %q", len(lines), b)
	}
	// The device is gone: the stock adb no longer reaches it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := adb.Command(ctx, "-s", serial, "shell", "echo", "hello").CombinedOutput(); err == nil {
		t.Errorf("adb shell after the device stopped: %q", out)
	}
}

// TestSimdeviceReplay serves a real capture and reads it back through the
// stock adb: the first read starts it, and it plays the capture's rows.
func TestSimdeviceReplay(t *testing.T) {
	capture := fixtures.Path(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	addr, stdout, stop := startSimdevice(t, "--replay", capture, "--package", "com.soundvisualization.accessibility", "--replay-speed", "50")
	adb := adbtest.StartADB(t)
	serial := adb.Connect(addr)
	if out := adb.Run("-s", serial, "shell", "pidof", "com.soundvisualization.accessibility"); strings.TrimSpace(out) == "" {
		t.Errorf("the replayed app is not running: %q", out)
	}
	read := func() *gfxinfo.FrameTable {
		out := adb.Run("-s", serial, "shell", "dumpsys", "gfxinfo", "com.soundvisualization.accessibility", "framestats")
		g, err := gfxinfo.Parse([]byte(out))
		if err != nil || len(g.Windows()) != 1 {
			t.Fatalf("dumpsys gfxinfo: %v\n%s", err, out)
		}
		return g.Windows()[0].Frames
	}
	read()
	// 2.56 s of capture at 50× is over within 0.1 s; wait for the rows.
	deadline := time.Now().Add(20 * time.Second)
	for read().Len() < 120 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	orig, err := gfxinfo.Parse(fixtures.Read(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ft, want := read(), orig.Windows()[0].Frames; ft.Len() != 120 || ft.RefreshPeriod() != want.RefreshPeriod() || ft.Frame(7).Duration() != want.Frame(7).Duration() {
		t.Errorf("%d rows, period %d; want the capture's 120 rows at %d ns", ft.Len(), ft.RefreshPeriod(), want.RefreshPeriod())
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "replaying") {
		t.Errorf("start-up message %q", stdout.String())
	}
}

// A truth file the frames cannot be written to is an error when the
// device stops, naming the file and the cause, never a quiet exit.
func TestSimdeviceTruthWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here to fail the writes")
	}
	addr, _, stop := startSimdevice(t, "--workload", "janky-scroll", "--truth", "/dev/full")
	adb := adbtest.StartADB(t)
	serial := adb.Connect(addr)
	adb.Run("-s", serial, "shell", "am", "start", "-W", "-n", simdevice.PresetPackage+"/.MainActivity")
	// Wait for frames: the app's first ones are on the way to the file.
	for !strings.Contains(adb.Run("-s", serial, "shell", "dumpsys", "gfxinfo", simdevice.PresetPackage, "framestats"), "\n0,") {
		adb.Run("-s", serial, "shell", "input", "swipe", "500", "1500", "500", "300", "300")
	}
	err := stop()
	if err == nil || !strings.Contains(err.Error(), "simdevice: --truth /dev/full: ") || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("err = %v, want the truth file and the cause", err)
	}
}

func TestSimdeviceWorkloadFile(t *testing.T) {
	w, err := simdevice.Preset("slow-start")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "slow.json")
	if err := os.WriteFile(good, b, 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _, stop := startSimdevice(t, "--workload", good)
	if banner := handshake(t, addr); !strings.HasPrefix(banner, "device::") {
		t.Errorf("banner %q", banner)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// The noise flags reach the phone: it reports the run's factor, and a cold
// start takes the workload's 650 ms times that factor (run noise only).
func TestSimdeviceNoise(t *testing.T) {
	n := simdevice.Noise{Seed: 7, RunPct: 5}
	addr, stdout, stop := startSimdevice(t, "--workload", "smooth-scroll", "--noise-seed", "7", "--run-noise", "5")
	want := fmt.Sprintf("noise: seed 7, run factor %.4f (run noise 5 %%), frame noise 0 %%\n", n.RunFactor())
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("start-up message %q lacks %q", stdout.String(), want)
	}
	t.Run("am start", func(t *testing.T) {
		adb := adbtest.StartADB(t)
		serial := adb.Connect(addr)
		out := adb.Run("-s", serial, "shell", "am", "start", "-W", "-n", simdevice.PresetPackage+"/.MainActivity")
		wantMs := int(math.Round(650 * n.RunFactor()))
		if !strings.Contains(out, fmt.Sprintf("TotalTime: %d\n", wantMs)) {
			t.Errorf("am start -W:\n%s\nwant TotalTime %d (650 ms × %.4f)", out, wantMs, n.RunFactor())
		}
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// Noise flags out of range, or without what they go with, are errors that
// name the flag.
func TestSimdeviceNoiseFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--frame-noise", "-1"}, "simdevice: --frame-noise -1: want 0 to 50 percent"},
		{[]string{"--run-noise", "60"}, "simdevice: --run-noise 60: want 0 to 50 percent"},
		{[]string{"--run-noise", "NaN"}, "simdevice: --run-noise NaN: want 0 to 50 percent"},
		{[]string{"--noise-seed", "3"}, "simdevice: --noise-seed goes with --frame-noise or --run-noise"},
		{[]string{"--replay", "gfx.txt", "--frame-noise", "5"}, "do not apply to --replay"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(append([]string{"simdevice", "--listen", "127.0.0.1:0"}, c.args...), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestSimdeviceAddrFile: with -listen 127.0.0.1:0 the phone serves on a
// free port, and -addr-file holds the address it printed, where an adb
// host gets the phone's banner, while it serves; the file goes when it
// stops, so a reader of the file never finds a phone that has gone.
func TestSimdeviceAddrFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sim.addr")
	addr, _, stop := startSimdevice(t, "-addr-file", file)
	b, err := os.ReadFile(file)
	if err != nil || string(b) != addr+"\n" {
		t.Fatalf("-addr-file holds %q (%v), want the printed address %q", b, err, addr+"\n")
	}
	if banner := handshake(t, strings.TrimSpace(string(b))); !strings.HasPrefix(banner, "device::") {
		t.Errorf("the address in -addr-file answers %q, not a device's banner", banner)
	}
	if err := stop(); err != nil {
		t.Fatalf("simdevice after interrupt: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("-addr-file after the phone stopped: %v, want it gone", err)
	}
}
