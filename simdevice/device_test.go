package simdevice

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNewDefaultsAndValidation(t *testing.T) {
	d := newTestDevice(t, Config{})
	cfg := d.Config()
	if cfg.Serial != "perfgate-sim" || cfg.API != 33 || cfg.Cores != 8 || cfg.Model != "Pixel 7" {
		t.Errorf("defaults = serial %q API %d cores %d model %q; want perfgate-sim 33 8 Pixel 7", cfg.Serial, cfg.API, cfg.Cores, cfg.Model)
	}
	// The zero Config is documented as the smooth-scroll preset at 60 Hz.
	if cfg.RefreshHz < 59.9 || cfg.RefreshHz > 60.1 || cfg.Workload == nil || cfg.Workload.Name != "smooth-scroll" {
		t.Errorf("Config() refresh %v Hz, workload %+v; want 60 Hz smooth-scroll", cfg.RefreshHz, cfg.Workload)
	}
	if d.Serial() != "perfgate-sim" {
		t.Errorf("Serial() = %q", d.Serial())
	}
	for _, api := range []int{28, 30, 33, 34} {
		if _, err := New(Config{API: api}); err != nil {
			t.Errorf("New(API %d): %v", api, err)
		}
	}
	for _, bad := range []Config{{API: 29}, {API: 35}, {API: -1}, {Cores: -2}, {Serial: "has space"}, {RefreshHz: -60}} {
		if d, err := New(bad); err == nil {
			d.Close()
			t.Errorf("New(%+v) succeeded; want an error", bad)
		} else if !strings.HasPrefix(err.Error(), "simdevice: config: ") {
			t.Errorf("New(%+v) error %q lacks the layer prefix", bad, err)
		}
	}
}

func TestProductAndFeatures(t *testing.T) {
	for _, tc := range []struct {
		api                 int
		name, model, device string
		abb                 bool
	}{
		{28, "blueline", "Pixel 3", "blueline", false},
		{30, "sunfish", "Pixel 4a", "sunfish", true},
		{33, "panther", "Pixel 7", "panther", true},
		{34, "shiba", "Pixel 8", "shiba", true},
	} {
		d := newTestDevice(t, Config{API: tc.api})
		name, model, device := d.Product()
		// A World that sets ro.product.* wins; otherwise the table applies.
		if v, ok := d.World().Prop("ro.product.model"); ok {
			tc.model = v
		}
		if v, ok := d.World().Prop("ro.product.name"); ok {
			tc.name = v
		}
		if v, ok := d.World().Prop("ro.product.device"); ok {
			tc.device = v
		}
		if name != tc.name || model != tc.model || device != tc.device {
			t.Errorf("API %d: Product() = %q %q %q, want %q %q %q", tc.api, name, model, device, tc.name, tc.model, tc.device)
		}
		f := d.Features()
		for _, must := range []string{"shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir"} {
			if !slices.Contains(f, must) {
				t.Errorf("API %d: Features() = %v lacks %s", tc.api, f, must)
			}
		}
		if slices.Contains(f, "abb") != tc.abb {
			t.Errorf("API %d: abb advertised = %v, want %v", tc.api, !tc.abb, tc.abb)
		}
		for _, x := range f {
			if strings.HasPrefix(x, "sendrecv_v2") {
				t.Errorf("API %d: advertises %s, which needs the v2 sync protocol", tc.api, x)
			}
		}
	}
}

func TestSyncPushPull(t *testing.T) {
	d := newTestDevice(t, Config{})
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	w, err := d.Create("/sdcard/perf/run1/budget.json", 0o640, mtime)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	io.WriteString(w, `{"jank":3}`)
	// Not visible until the push completes.
	if _, err := d.Stat("/sdcard/perf/run1/budget.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat before Close: err %v, want not exist", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, p := range []string{"/sdcard/perf/run1/budget.json", "/storage/emulated/0/perf/run1/budget.json", "/storage/self/primary/perf/run1/budget.json"} {
		fi, err := d.Stat(p)
		if err != nil {
			t.Fatalf("Stat(%s): %v", p, err)
		}
		if fi.Size() != 10 || fi.Mode() != 0o640 || !fi.ModTime().Equal(mtime) || fi.IsDir() || fi.Name() != "budget.json" {
			t.Errorf("Stat(%s) = size %d mode %v mtime %v name %s; want 10 -rw-r----- %v budget.json", p, fi.Size(), fi.Mode(), fi.ModTime(), fi.Name(), mtime)
		}
		r, err := d.Open(p)
		if err != nil {
			t.Fatalf("Open(%s): %v", p, err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if string(b) != `{"jank":3}` {
			t.Errorf("Open(%s) read %q", p, b)
		}
	}
	ents, err := d.ReadDir("/sdcard/perf")
	if err != nil || len(ents) != 1 || ents[0].Name() != "run1" || !ents[0].IsDir() {
		t.Errorf("ReadDir(/sdcard/perf) = %v, %v; want [run1/]", ents, err)
	}
	// The shell sees what was pushed.
	out, _, st := run(t, d, "cat /sdcard/perf/run1/budget.json", "")
	if st != 0 || out != `{"jank":3}` {
		t.Errorf("shell cat after push = %d %q", st, out)
	}
	// A second push replaces the file.
	w, _ = d.Create("/data/local/tmp/a.txt", 0o755, time.Time{})
	io.WriteString(w, "one")
	w.Close()
	w, _ = d.Create("/data/local/tmp/a.txt", 0o755, time.Time{})
	io.WriteString(w, "2")
	w.Close()
	r, _ := d.Open("/data/local/tmp/a.txt")
	b, _ := io.ReadAll(r)
	if string(b) != "2" {
		t.Errorf("second push left %q", b)
	}
}

func TestSyncErrors(t *testing.T) {
	d := newTestDevice(t, Config{})
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/system/app/x.apk", syscall.EROFS},
		{"/vendor/etc/x", syscall.EROFS},
		{"/data/app/x", fs.ErrPermission},
		{"/proc/stat", fs.ErrPermission},
		{"relative/x", fs.ErrInvalid},
		{"/data/local/tmp", syscall.EISDIR},
	} {
		w, err := d.Create(tc.path, 0o644, time.Time{})
		if err == nil {
			w.Close()
			t.Errorf("Create(%s) succeeded", tc.path)
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("Create(%s) = %v, want %v", tc.path, err, tc.want)
		}
		if !strings.Contains(err.Error(), tc.path) {
			t.Errorf("Create(%s) error %q does not name the path", tc.path, err)
		}
	}
	if _, err := d.Stat("/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(/nope) = %v", err)
	}
	if _, err := d.Open("/data/local/tmp"); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("Open(dir) = %v, want EISDIR", err)
	}
	if _, err := d.ReadDir("/data"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("ReadDir(/data) as shell = %v, want permission denied", err)
	}
	if _, err := d.ReadDir("/system/build.prop"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("ReadDir(file) = %v, want ENOTDIR", err)
	}
}

func TestSyncSkeleton(t *testing.T) {
	d := newTestDevice(t, Config{})
	for _, tc := range []struct {
		path string
		dir  bool
	}{
		{"/", true}, {"/system", true}, {"/system/bin", true}, {"/system/bin/sh", false},
		{"/sdcard", true}, {"/data/local/tmp", true}, {"/dev/null", false}, {"/proc", true},
	} {
		fi, err := d.Stat(tc.path)
		if err != nil {
			t.Errorf("Stat(%s): %v", tc.path, err)
			continue
		}
		if fi.IsDir() != tc.dir {
			t.Errorf("Stat(%s).IsDir() = %v", tc.path, fi.IsDir())
		}
	}
	ents, err := d.ReadDir("/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	for _, must := range []string{"data", "proc", "sdcard", "storage", "sys", "system", "vendor"} {
		if !slices.Contains(names, must) {
			t.Errorf("ReadDir(/) = %v lacks %s", names, must)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("ReadDir(/) not sorted: %v", names)
	}
}

func TestDialTCP(t *testing.T) {
	d := newTestDevice(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, port := range []int{5037, 8080, 6789} {
		_, err := d.DialTCP(ctx, port)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("DialTCP(%d) = %v, want connection refused", port, err)
		}
	}
	for _, port := range []int{0, -1, 70000} {
		if _, err := d.DialTCP(ctx, port); err == nil || errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("DialTCP(%d) = %v, want an invalid-port error", port, err)
		}
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := d.DialTCP(done, UIAutomatorPort); !errors.Is(err, context.Canceled) {
		t.Errorf("DialTCP with a cancelled context = %v", err)
	}
	if d.World().Screen() == nil {
		t.Skip("the World has no screen yet; nothing listens on 6790")
	}
	c, err := d.DialTCP(ctx, UIAutomatorPort)
	if err != nil {
		t.Fatalf("DialTCP(6790): %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET /wd/hub/status HTTP/1.1\r\nHost: 127.0.0.1:6790\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading /wd/hub/status over the dialled connection: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /wd/hub/status = %s", resp.Status)
	}
}

func TestDialAfterClose(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := d.DialTCP(context.Background(), UIAutomatorPort); !errors.Is(err, ErrClosed) {
		t.Errorf("DialTCP after Close = %v, want ErrClosed", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// Through the shell, each API level answers the commands perftest polls with
// output of the real shape. Column counts of the framestats header are those
// of real captures per Android release (fixtures/SOURCES.md, gfxinfo table):
// 16 on Android 9, 17 on 11, 23 on 13 and 14.
func TestShellWorldShapes(t *testing.T) {
	for _, tc := range []struct {
		api     int
		columns int
	}{{28, 16}, {30, 17}, {33, 23}, {34, 23}} {
		t.Run(fmt.Sprint("API", tc.api), func(t *testing.T) {
			d := newTestDevice(t, Config{API: tc.api})
			pkg := d.World().Package()
			if pkg == "" {
				t.Fatal("the World has no app package")
			}
			out, errs, st := run(t, d, "getprop ro.build.version.sdk", "")
			if st != 0 || strings.TrimSpace(out) != fmt.Sprint(tc.api) {
				t.Errorf("getprop ro.build.version.sdk = %q %q %d", out, errs, st)
			}

			out, _, st = run(t, d, "cat /proc/stat", "")
			ls := strings.Split(out, "\n")
			if st != 0 || !strings.HasPrefix(ls[0], "cpu  ") || len(strings.Fields(ls[0])) < 8 {
				t.Errorf("cat /proc/stat first line %q (status %d); want the aggregate cpu line", ls[0], st)
			}
			for c := range d.Config().Cores {
				if !strings.Contains(out, fmt.Sprintf("\ncpu%d ", c)) {
					t.Errorf("cat /proc/stat lacks cpu%d", c)
				}
			}

			run(t, d, "monkey -p "+pkg+" -c android.intent.category.LAUNCHER 1", "")
			out, errs, st = run(t, d, "pidof "+pkg, "")
			pid := strings.TrimSpace(out)
			if st != 0 || pid == "" || strings.Trim(pid, "0123456789") != "" {
				t.Fatalf("pidof %s = %q %q %d; want one pid", pkg, out, errs, st)
			}
			out, _, st = run(t, d, "cat /proc/"+pid+"/stat", "")
			if st != 0 || !strings.HasPrefix(out, pid+" (") {
				t.Errorf("cat /proc/%s/stat = %q (status %d)", pid, out, st)
			}
			out, _, st = run(t, d, "cat /proc/"+pid+"/task/*/stat | wc -l", "")
			if n, _ := strconv.Atoi(strings.TrimSpace(out)); st != 0 || n < 1 {
				t.Errorf("task stats through a glob: %q (status %d)", out, st)
			}

			out, _, st = run(t, d, "dumpsys gfxinfo "+pkg+" framestats", "")
			if st != 0 || strings.Count(out, "---PROFILEDATA---") < 2 {
				t.Errorf("dumpsys gfxinfo framestats: status %d, %d PROFILEDATA markers", st, strings.Count(out, "---PROFILEDATA---"))
			}
			out, _, _ = run(t, d, "dumpsys gfxinfo "+pkg+" framestats | grep -m 1 ^Flags,", "")
			var cols int
			for _, f := range strings.Split(strings.TrimSpace(out), ",") {
				if f != "" {
					cols++
				}
			}
			if cols != tc.columns {
				t.Errorf("framestats header has %d columns, want %d: %q", cols, tc.columns, out)
			}

			out, _, st = run(t, d, "dumpsys meminfo "+pkg, "")
			if st != 0 || !strings.Contains(out, "** MEMINFO in pid "+pid+" ["+pkg+"] **") || !strings.Contains(out, "App Summary") || !strings.Contains(out, "TOTAL") {
				t.Errorf("dumpsys meminfo %s: status %d, output %.300q", pkg, st, out)
			}
		})
	}
}

// adb pull of kernel files reads what the World renders; stat(2) reports
// size 0 for /proc files as the kernel does, so pull must read to the end.
func TestSyncKernelFiles(t *testing.T) {
	d := newTestDevice(t, Config{})
	fi, err := d.Stat("/proc/stat")
	if err != nil || fi.IsDir() || fi.Size() != 0 {
		t.Fatalf("Stat(/proc/stat) = %v, %v; want a size-0 file", fi, err)
	}
	r, err := d.Open("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	if !strings.HasPrefix(string(b), "cpu  ") {
		t.Errorf("pulled /proc/stat starts %.20q", b)
	}
	ents, err := d.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids, files int
	for _, e := range ents {
		if strings.Trim(e.Name(), "0123456789") == "" {
			pids++
			if !e.IsDir() {
				t.Errorf("/proc/%s is not a directory", e.Name())
			}
		} else if !e.IsDir() {
			files++
		}
	}
	if pids == 0 || files == 0 {
		t.Errorf("ReadDir(/proc): %d pid directories, %d files; want both", pids, files)
	}
	if _, err := d.Open("/proc/nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(/proc/nope) = %v", err)
	}
}
