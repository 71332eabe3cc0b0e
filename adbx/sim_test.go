package adbx_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/simdevice"
)

func TestFactsSim(t *testing.T) {
	t.Parallel()
	configs := []simdevice.Config{
		{Serial: "sim-34", API: 34, Model: "Test Phone", Cores: 6, RefreshHz: 120, Root: true},
		{Serial: "sim-28", API: 28, Model: "Old Phone", Cores: 4, RefreshHz: 90},
	}
	for _, ep := range endpoints {
		for _, cfg := range configs {
			t.Run(ep.name+"/"+cfg.Serial, func(t *testing.T) {
				t.Parallel()
				d, _ := ep.open(t, newSim(t, cfg))
				f, notes, err := d.Facts(ctxT(t, 10*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if len(notes) > 0 {
					t.Errorf("a phone with every command has notes: %q", notes)
				}
				// Ground truth is the configuration the device was built from;
				// 100 is USER_HZ on every Android kernel.
				if f.Serial != d.Serial() || f.API != cfg.API || f.Model != cfg.Model || f.Cores != cfg.Cores ||
					f.RefreshHz != cfg.RefreshHz || f.Root != cfg.Root || f.ClockTicks != 100 {
					t.Errorf("Facts = %+v\nwant serial %s, API %d, model %q, %d cores, %v Hz, root %v, 100 ticks",
						f, d.Serial(), cfg.API, cfg.Model, cfg.Cores, cfg.RefreshHz, cfg.Root)
				}
				if f.Release == "" || f.ABI == "" || f.Manufacturer == "" {
					t.Errorf("Facts = %+v: empty release, ABI or manufacturer", f)
				}
			})
		}
	}
}

// TestFactsSimQuirks reads the facts of phones whose shells lack what
// Facts asks first: the core count must still be the configured one, and
// the API level must come from /system/build.prop when getprop is gone.
func TestFactsSimQuirks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		quirks simdevice.Quirks
		source string
		note   string // a note must hold this
	}{
		{"no nproc, no possible", simdevice.Quirks{MissingCommands: []string{"nproc"}, MissingFiles: []string{"/sys/devices/system/cpu/possible"}},
			"/proc/stat", "cores: nproc: exit status 127: /system/bin/sh: nproc: inaccessible or not found; cat /sys/devices/system/cpu/possible: exit status 1: "},
		{"no nproc, no /sys cpu", simdevice.Quirks{MissingCommands: []string{"nproc"}, MissingFiles: []string{"/sys/devices/system/cpu"}},
			"/proc/stat", "counted 6 from the cpuN lines of /proc/stat"},
		{"no getprop", simdevice.Quirks{MissingCommands: []string{"getprop"}}, "nproc",
			"ro.build.version.sdk: getprop ro.build.version.sdk: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.build.version.sdk from /system/build.prop"},
	}
	for _, ep := range endpoints {
		for _, tc := range cases {
			t.Run(ep.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				cfg := simdevice.Config{API: 30, Model: "Quirky Phone", Cores: 6, Quirks: tc.quirks}
				d, _ := ep.open(t, newSim(t, cfg))
				f, notes, err := d.Facts(ctxT(t, 10*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if f.Cores != cfg.Cores || f.API != cfg.API || f.Model != cfg.Model || f.CoresSource != tc.source {
					t.Errorf("Facts = %+v\nwant %d cores from %s, API %d, model %q", f, cfg.Cores, tc.source, cfg.API, cfg.Model)
				}
				if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
					t.Errorf("notes %q\nwant one holding %q", notes, tc.note)
				}
			})
		}
	}
}

func TestAppSim(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			sim := newSim(t, simdevice.Config{})
			wl := sim.World().Workload()
			d, _ := ep.open(t, sim)
			ctx := ctxT(t, 20*time.Second)

			uid, err := d.AppUID(ctx, wl.Package)
			if err != nil || uid != wl.UID {
				t.Errorf("AppUID(%s) = %d, %v; want %d", wl.Package, uid, err, wl.UID)
			}
			dbg, err := d.Debuggable(ctx, wl.Package)
			if err != nil || dbg != wl.Debuggable {
				t.Errorf("Debuggable(%s) = %v, %v; want %v", wl.Package, dbg, err, wl.Debuggable)
			}
			procs, err := d.AppProcesses(ctx, wl.Package)
			if err != nil || len(procs) != 0 {
				t.Errorf("AppProcesses before launch = %v, %v; want none", procs, err)
			}

			r, err := d.Shell(ctx, "am start -W -n "+adbx.Quote(wl.Package+"/"+wl.Activity))
			if err != nil || r.ExitCode != 0 {
				t.Fatalf("am start: %+v, %v", r, err)
			}
			r, err = d.Shell(ctx, "pidof "+wl.Package)
			if err != nil || r.ExitCode != 0 {
				t.Fatalf("pidof: %+v, %v", r, err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
			if err != nil {
				t.Fatalf("pidof printed %q", r.Stdout)
			}
			procs, err = d.AppProcesses(ctx, wl.Package)
			if err != nil || len(procs) != 1 || procs[0].PID != pid || procs[0].Name != wl.Package {
				t.Errorf("AppProcesses after launch = %+v, %v; want %s as pid %d (from pidof)", procs, err, wl.Package, pid)
			}

			const missing = "com.example.not.installed"
			if _, err := d.AppUID(ctx, missing); !errors.Is(err, adbx.ErrAppNotInstalled) || !strings.Contains(err.Error(), missing) {
				t.Errorf("AppUID(%s): %v, want ErrAppNotInstalled naming it", missing, err)
			}
			if _, err := d.Debuggable(ctx, missing); !errors.Is(err, adbx.ErrAppNotInstalled) {
				t.Errorf("Debuggable(%s): %v, want ErrAppNotInstalled", missing, err)
			}
			if procs, err := d.AppProcesses(ctx, missing); err != nil || len(procs) != 0 {
				t.Errorf("AppProcesses(%s) = %v, %v; want none", missing, procs, err)
			}
		})
	}
}

// threadtime is a `logcat -v threadtime` line: date, time, pid, tid, level.
var threadtime = regexp.MustCompile(`^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEFA] `)

func TestLogcatSim(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			d, _ := ep.open(t, newSim(t, simdevice.Config{}))
			ctx := ctxT(t, 20*time.Second)
			since := time.Now().Add(-time.Hour)
			for _, start := range []time.Time{{}, since} {
				r, err := d.Logcat(ctx, start)
				if err != nil {
					t.Fatal(err)
				}
				line, err := readLine(r)
				r.Close()
				if err != nil {
					t.Fatalf("logcat since %v: %v", start, err)
				}
				if !threadtime.MatchString(line) {
					t.Errorf("logcat since %v: line %q is not threadtime", start, line)
				}
			}
		})
	}
}

func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
}

func TestPushPullSim(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("perfgate\x00\xff\n"), 10_000)
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			d, _ := ep.open(t, newSim(t, simdevice.Config{}))
			ctx := ctxT(t, 20*time.Second)
			const p = "/data/local/tmp/perfgate-blob"
			if err := d.Push(ctx, bytes.NewReader(data), p, 0o644, time.Time{}); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := d.Pull(ctx, p, &got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), data) {
				t.Errorf("pulled %d bytes, pushed %d", got.Len(), len(data))
			}
			// The shell sees what sync wrote.
			r, err := d.Shell(ctx, "wc -c < "+p)
			if err != nil || strings.TrimSpace(string(r.Stdout)) != strconv.Itoa(len(data)) {
				t.Errorf("wc -c: %q, %v; want %d", r.Stdout, err, len(data))
			}
			if err := d.Pull(ctx, "/data/local/tmp/missing", io.Discard); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("pull missing: %v, want fs.ErrNotExist", err)
			}
		})
	}
}

func TestForwardSim(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			d, _ := ep.open(t, newSim(t, simdevice.Config{}))
			ctx := ctxT(t, 20*time.Second)
			// 6790 is where the device's uiautomator2 server listens.
			port, err := d.Forward(ctx, 6790)
			if err != nil {
				t.Fatal(err)
			}
			defer d.RemoveForward(ctx, port)
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.Dial}}
			defer client.CloseIdleConnections()
			resp, err := client.Get("http://" + forwardAddr(d, port) + "/wd/hub/status")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET /wd/hub/status through the forward: %s %q", resp.Status, body)
			}
		})
	}
}

// TestGadb checks that the device handed to gadb-based libraries (guia2)
// is the same device and works.
func TestGadb(t *testing.T) {
	t.Parallel()
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			tcpOnly(t, ep)
			d, _ := ep.open(t, newSim(t, simdevice.Config{}))
			g, err := d.Gadb()
			if err != nil {
				t.Fatal(err)
			}
			if g.Serial() != d.Serial() {
				t.Errorf("gadb serial %q, want %q", g.Serial(), d.Serial())
			}
			out, err := g.RunShellCommand("getprop ro.build.version.sdk")
			if err != nil || strings.TrimSpace(out) != "33" {
				t.Errorf("gadb shell: %q, %v; want 33 (the simulated default API)", out, err)
			}
		})
	}
}
