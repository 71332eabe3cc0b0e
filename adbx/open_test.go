package adbx_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
)

func TestOpenSelectsDevice(t *testing.T) {
	one := &adbtest.FakeDevice{SerialNo: "phone-1", ModelName: "Pixel 7"}
	two := &adbtest.FakeDevice{SerialNo: "phone-2", ModelName: "Galaxy S23"}
	tests := []struct {
		name    string
		devs    []adbtest.Device
		serial  string // Options.Serial
		env     string // ANDROID_SERIAL
		want    string
		err     error
		mention []string
	}{
		{"only device", []adbtest.Device{one}, "", "", "phone-1", nil, nil},
		{"option", []adbtest.Device{one, two}, "phone-2", "phone-1", "phone-2", nil, nil},
		{"ANDROID_SERIAL", []adbtest.Device{one, two}, "", "phone-2", "phone-2", nil, nil},
		{"many", []adbtest.Device{one, two}, "", "", "", adbx.ErrManyDevices, []string{"phone-1 (device, model Pixel_7)", "phone-2 (device, model Galaxy_S23)"}},
		{"none", nil, "", "", "", adbx.ErrNoDevice, []string{"none attached"}},
		{"named but absent", []adbtest.Device{one}, "phone-9", "", "", adbx.ErrNoDevice, []string{"phone-9", "phone-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ANDROID_SERIAL", tc.env)
			srv := adbtest.NewServer(tc.devs...)
			defer srv.Close()
			d, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{Server: srv.Addr, Serial: tc.serial})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				for _, m := range tc.mention {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not mention %q", err, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Serial() != tc.want {
				t.Errorf("opened %q, want %q", d.Serial(), tc.want)
			}
		})
	}
}

func TestOpenADBServerSocket(t *testing.T) {
	srv := adbtest.NewServer(&adbtest.FakeDevice{})
	defer srv.Close()
	t.Setenv("ANDROID_SERIAL", "")
	t.Setenv("ADB_SERVER_SOCKET", "tcp:"+srv.Addr)
	d, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Server() != srv.Addr {
		t.Errorf("server %q, want %q from ADB_SERVER_SOCKET", d.Server(), srv.Addr)
	}
	// Just the port means the loopback host.
	t.Setenv("ADB_SERVER_SOCKET", "tcp:"+srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:])
	if _, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{}); err != nil {
		t.Errorf("tcp:<port>: %v", err)
	}
	t.Setenv("ADB_SERVER_SOCKET", "localfilesystem:/tmp/adb.sock")
	if _, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{}); err == nil || !strings.Contains(err.Error(), "localfilesystem") {
		t.Errorf("unsupported socket: err %v, want one quoting it", err)
	}
}

// A server on another port, named the way the adb command reads it
// (ANDROID_ADB_SERVER_PORT), is the one Open talks to.
func TestOpenAndroidADBServerPort(t *testing.T) {
	srv := adbtest.NewServer(&adbtest.FakeDevice{SerialNo: "phone-on-another-port"})
	defer srv.Close()
	t.Setenv("ANDROID_SERIAL", "")
	t.Setenv("ADB_SERVER_SOCKET", "")
	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:])
	d, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Server() != srv.Addr || d.Serial() != "phone-on-another-port" {
		t.Errorf("opened %s on %s, want phone-on-another-port on %s", d.Serial(), d.Server(), srv.Addr)
	}
	t.Setenv("ANDROID_ADB_SERVER_PORT", "50x7")
	if _, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{}); err == nil || !strings.Contains(err.Error(), `ANDROID_ADB_SERVER_PORT="50x7"`) {
		t.Errorf("bad port: err %v, want one quoting it", err)
	}
}

func TestOpenNoServer(t *testing.T) {
	t.Parallel()
	srv := adbtest.NewServer()
	addr := srv.Addr
	srv.Close()
	_, err := adbx.Open(ctxT(t, 10*time.Second), adbx.Options{Server: addr})
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err %v, want one naming %s", err, addr)
	}
}

// TestInjectionRefused checks that package names carrying shell syntax
// never reach the device.
func TestInjectionRefused(t *testing.T) {
	t.Parallel()
	dev := newHostShell(t, "host-sh", true)
	srv := adbtest.NewServer(dev)
	defer srv.Close()
	d := srv.Open("")
	ctx := ctxT(t, 10*time.Second)
	for _, pkg := range []string{"com.x;reboot", "com.x reboot", "com.x'", `com.x"`, "com.$(reboot)", "com.`reboot`", "com.x\nreboot", "com.x|sh", ""} {
		if _, err := d.AppProcesses(ctx, pkg); err == nil {
			t.Errorf("AppProcesses(%q): no error", pkg)
		}
		if _, err := d.AppUID(ctx, pkg); err == nil {
			t.Errorf("AppUID(%q): no error", pkg)
		}
		if _, err := d.Debuggable(ctx, pkg); err == nil {
			t.Errorf("Debuggable(%q): no error", pkg)
		}
	}
	if seen := dev.seen(); len(seen) != 0 {
		t.Errorf("the device ran %q", seen)
	}
	// Quoted user text is inert on a real shell.
	evil := "$(echo pwned >&2); echo pwned; 'quoted' \"double\" `id`"
	r, err := d.Shell(ctx, "printf %s "+adbx.Quote(evil))
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Stdout) != evil || len(r.Stderr) != 0 {
		t.Errorf("quoted text came back as %q / %q", r.Stdout, r.Stderr)
	}
	// A NUL cannot be sent in a command line; it is refused, not cut.
	if _, err := d.Shell(ctx, "echo a\x00b"); err == nil {
		t.Error("command with a NUL: no error")
	}
	if _, err := d.Batch(ctx, []string{"true", "echo a\x00b"}); err == nil {
		t.Error("batch with a NUL: no error")
	}
}

// TestRequestTooLong checks that a command line longer than the host
// protocol can carry is refused with a clear error, not cut.
func TestRequestTooLong(t *testing.T) {
	t.Parallel()
	srv := adbtest.NewServer(&adbtest.FakeDevice{})
	defer srv.Close()
	d := srv.Open("")
	long := "echo " + strings.Repeat("x", 70_000)
	if _, err := d.Shell(ctxT(t, 10*time.Second), long); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("Shell of %d bytes: err %v, want one about the limit", len(long), err)
	}
	if _, err := d.Batch(ctxT(t, 10*time.Second), []string{"true", long}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("Batch with %d bytes: err %v, want one about the limit", len(long), err)
	}
}
