package adbx_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// endpoint is one way of serving a device to adbx: the pure-Go host
// protocol server, or the stock adb server joined to a device-protocol
// listener.
type endpoint struct {
	name string
	// open serves dev and returns it opened, and a function that makes the
	// device vanish mid-call.
	open func(t testing.TB, dev adbtest.Device) (d *adbx.Device, drop func())
}

var endpoints = []endpoint{
	{"server", func(t testing.TB, dev adbtest.Device) (*adbx.Device, func()) {
		srv := adbtest.NewServer(dev)
		t.Cleanup(srv.Close)
		return srv.Open(dev.Serial()), func() { srv.Remove(dev.Serial()) }
	}},
	{"adb", func(t testing.TB, dev adbtest.Device) (*adbx.Device, func()) {
		d, adbd := adbtest.StartADB(t).Serve(t, dev)
		return d, adbd.DropConnections
	}},
	// The host-protocol server over in-memory pipes (adbtest.NewPipeServer),
	// as ground-truth tests in a testing/synctest bubble reach it; here on
	// the wall clock, for the transport's semantics.
	{"pipe", func(t testing.TB, dev adbtest.Device) (*adbx.Device, func()) {
		srv := adbtest.NewPipeServer(dev)
		t.Cleanup(srv.Close)
		return srv.Open(dev.Serial()), func() { srv.Remove(dev.Serial()) }
	}},
}

// forwardAddr is the "host:port" of a forward's local port: on the adb
// server's host, which d.Dial reaches.
func forwardAddr(d *adbx.Device, port int) string {
	host, _, _ := net.SplitHostPort(d.Server())
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// tcpOnly skips a test of a client that dials the adb server over TCP
// itself (gadb, guia2), which an in-memory server cannot serve.
func tcpOnly(t *testing.T, ep endpoint) {
	t.Helper()
	if ep.name == "pipe" {
		t.Skip("the client dials TCP itself; the pipe server has no port")
	}
}

// hostShell is a device whose shell is the host's /bin/sh: a real POSIX
// shell, so the batch script and quoting meet a real interpreter. v2 says
// whether it offers shell_v2 (Android 7+) or only the old shell: service.
type hostShell struct {
	*adbtest.FakeDevice
	mu   sync.Mutex
	cmds []string // every command line the device was asked to run
}

func newHostShell(t testing.TB, serial string, v2 bool) *hostShell {
	t.Helper()
	if _, err := exec.LookPath("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	h := &hostShell{}
	feats := []string{"cmd"}
	if v2 {
		feats = append(feats, "shell_v2")
	}
	h.FakeDevice = &adbtest.FakeDevice{SerialNo: serial, FeatureList: feats, Handler: h.run}
	return h
}

func (h *hostShell) run(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	h.mu.Lock()
	h.cmds = append(h.cmds, cmd)
	h.mu.Unlock()
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = "/"
	c.Stdout, c.Stderr = stdout, stderr
	// The shell's stdin is a pipe fed from the stream, so that Wait does
	// not wait for a client that never closes its side.
	pr, pw, err := os.Pipe()
	if err != nil {
		return 1
	}
	defer pr.Close()
	go func() {
		if stdin != nil {
			_, _ = io.Copy(pw, stdin)
		}
		pw.Close()
	}()
	c.Stdin = pr
	// Its own process group, so that ending the command also ends what
	// it started (sleep 100), and no process outlives the test.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err = c.Start(); err != nil {
		fmt.Fprintf(stderr, "/bin/sh: %v\n", err)
		return 127
	}
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL) })
	defer stop()
	err = c.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		if ee.ExitCode() < 0 {
			return 128 + int(syscall.SIGKILL)
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// testDevice is a kind of device the tests run against.
type testDevice struct {
	name string
	v2   bool // offers shell_v2
	new  func(t testing.TB) adbtest.Device
}

var testDevices = []testDevice{
	{"sim", true, func(t testing.TB) adbtest.Device { return newSim(t, simdevice.Config{}) }},
	{"hostsh", true, func(t testing.TB) adbtest.Device { return newHostShell(t, "host-sh", true) }},
	{"hostsh-v1", false, func(t testing.TB) adbtest.Device { return newHostShell(t, "host-sh", false) }},
}

// newSim starts a simulated phone that stops when the test ends.
func newSim(t testing.TB, cfg simdevice.Config) *simdevice.Device {
	t.Helper()
	d, err := simdevice.New(cfg)
	if err != nil {
		t.Fatalf("simdevice: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// seen returns the command lines the device ran.
func (h *hostShell) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.cmds...)
}
