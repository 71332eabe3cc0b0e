package adbx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseFacts(t *testing.T) {
	t.Parallel()
	ok := func(s string) Result { return Result{Stdout: []byte(s)} }
	fail := Result{Stderr: []byte("not found"), ExitCode: 127}
	stat8 := Result{Stdout: fixtures.Read(t, "proc/unidbg_rootfs_8core_2025_proc_stat.txt")}
	rs := []Result{
		ok("Pixel 7\n"), ok("Google\n"), ok("arm64-v8a\n"), ok("33\n"), ok("13\n"),
		fail, ok("0-3,4-7\n"), fail,
		{Stdout: fixtures.Read(t, "display/flashlight_dumpsys_display_grep_120hz_pixel.txt")},
		ok("0\n"), stat8,
	}
	f, notes, err := parseFacts(rs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := procfs.DeviceFacts{Model: "Pixel 7", Manufacturer: "Google", ABI: "arm64-v8a", API: 33, Release: "13",
		Cores: 8, CoresSource: "/sys/devices/system/cpu/possible", ClockTicks: 100, RefreshHz: 120.00001, Root: true}
	wantNotes := []string{
		`cores: nproc: exit status 127: not found; counted 8 from /sys/devices/system/cpu/possible`,
		`clock ticks: getconf CLK_TCK: exit status 127: not found; assuming 100, USER_HZ on every Android kernel`,
	}
	if f != want || !slices.Equal(notes, wantNotes) {
		t.Errorf("got %+v\n%q\nwant %+v\n%q", f, notes, want, wantNotes)
	}
	rs[3] = ok("\n")
	if _, _, err := parseFacts(rs, &Result{Stdout: []byte("ro.build.version.sdk=\n")}); err == nil || !strings.Contains(err.Error(), "getprop ro.build.version.sdk") {
		t.Errorf("missing API level: err %v, want one naming the command", err)
	}
}

// TestParseFactsFallbacks runs parseFacts over what shells without nproc,
// the cpu possible file or getprop print (the real /proc/stat captures of
// an 8-core phone and of a phone with one core online), and checks each
// fallback and each failure is named with the command, its exit status and
// its stderr.
func TestParseFactsFallbacks(t *testing.T) {
	t.Parallel()
	ok := func(s string) Result { return Result{Stdout: []byte(s)} }
	missing := func(cmd string) Result {
		return Result{Stderr: []byte("/system/bin/sh: " + cmd + ": inaccessible or not found\n"), ExitCode: 127}
	}
	noFile := Result{Stderr: []byte("cat: /sys/devices/system/cpu/possible: No such file or directory\n"), ExitCode: 1}
	stat8 := Result{Stdout: fixtures.Read(t, "proc/unidbg_rootfs_8core_2025_proc_stat.txt")}
	stat1 := Result{Stdout: fixtures.Read(t, "proc/goclever_insignia5_api17_proc_stat.txt")}
	display60 := Result{Stdout: fixtures.Read(t, "display/flashlight_dumpsys_display_grep_60hz.txt")}
	base := func() []Result {
		return []Result{
			ok("Pixel 7\n"), ok("Google\n"), ok("arm64-v8a\n"), ok("33\n"), ok("13\n"),
			ok("8\n"), ok("0-7\n"), ok("100\n"), display60, ok("2000\n"), stat8,
		}
	}
	noGetprop := func(rs []Result) {
		for i := factModel; i <= factRelease; i++ {
			rs[i] = missing("getprop")
		}
	}
	buildProp := &Result{Stdout: []byte("# begin build properties\nro.system.build.version.sdk=34\nro.build.version.release=14\n" +
		"ro.product.system.model=mainline\nro.product.vendor.model=Pixel 8\nro.product.vendor.manufacturer=Google\n" +
		"ro.vendor.product.cpu.abilist=arm64-v8a,armeabi-v7a\n"),
		Stderr: []byte("cat: /product/build.prop: No such file or directory\n"), ExitCode: 1}
	tests := []struct {
		name      string
		edit      func([]Result)
		buildProp *Result
		cores     int
		source    string
		api       int
		model     string
		notes     []string
		noHz      bool // the refresh rate is not measured
		err       string
	}{
		{name: "all agree", edit: func([]Result) {}, cores: 8, source: "nproc", api: 33, model: "Pixel 7"},
		// The refresh rate is left 0 (not measured), and the note says why.
		{name: "display denied",
			edit: func(rs []Result) {
				rs[factDisplay] = ok("Permission Denial: can't dump DisplayManager from from pid=4242, uid=2000 due to missing android.permission.DUMP permission\n")
			},
			cores: 8, source: "nproc", api: 33, model: "Pixel 7", noHz: true,
			notes: []string{"refresh rate: dumpsys display: no refresh rate (modeId with supportedModes, renderFrameRate, mRefreshRate= or 'N fps')"}},
		{name: "no nproc, no possible",
			edit:  func(rs []Result) { rs[factNproc], rs[factPossible] = missing("nproc"), noFile },
			cores: 8, source: "/proc/stat", api: 33, model: "Pixel 7",
			notes: []string{"cores: nproc: exit status 127: /system/bin/sh: nproc: inaccessible or not found; " +
				"cat /sys/devices/system/cpu/possible: exit status 1: cat: /sys/devices/system/cpu/possible: No such file or directory; " +
				"counted 8 from the cpuN lines of /proc/stat (online cores only)"}},
		{name: "cores offline",
			edit: func(rs []Result) {
				rs[factNproc], rs[factPossible], rs[factProcStat] = missing("nproc"), ok("0-3\n"), stat1
			},
			cores: 4, source: "/sys/devices/system/cpu/possible", api: 33, model: "Pixel 7",
			notes: []string{"cores: nproc: exit status 127: /system/bin/sh: nproc: inaccessible or not found; counted 4 from /sys/devices/system/cpu/possible",
				"cores: the sources disagree (/sys/devices/system/cpu/possible 4, /proc/stat 1; /proc/stat lists online cores only); using 4 from /sys/devices/system/cpu/possible"}},
		{name: "no core count at all",
			edit: func(rs []Result) {
				rs[factNproc], rs[factPossible], rs[factProcStat] = missing("nproc"), noFile, Result{Stderr: []byte("cat: /proc/stat: Permission denied"), ExitCode: 1}
			},
			api: 33, model: "Pixel 7",
			notes: []string{"cores: nproc: exit status 127: /system/bin/sh: nproc: inaccessible or not found; " +
				"cat /sys/devices/system/cpu/possible: exit status 1: cat: /sys/devices/system/cpu/possible: No such file or directory; " +
				"cat /proc/stat: exit status 1: cat: /proc/stat: Permission denied"}},
		{name: "no getprop", edit: noGetprop, buildProp: buildProp, cores: 8, source: "nproc", api: 34, model: "Pixel 8",
			notes: []string{
				"ro.product.model: getprop ro.product.model: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.product.vendor.model from /system/build.prop",
				"ro.product.manufacturer: getprop ro.product.manufacturer: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.product.vendor.manufacturer from /system/build.prop",
				"ro.product.cpu.abi: getprop ro.product.cpu.abi: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.vendor.product.cpu.abilist from /system/build.prop",
				"ro.build.version.sdk: getprop ro.build.version.sdk: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.system.build.version.sdk from /system/build.prop",
				"ro.build.version.release: getprop ro.build.version.release: exit status 127: /system/bin/sh: getprop: inaccessible or not found; read ro.build.version.release from /system/build.prop",
			}},
		{name: "no getprop, no build.prop", edit: noGetprop,
			buildProp: &Result{Stderr: []byte("cat: /system/build.prop: Permission denied\n"), ExitCode: 1},
			err: "getprop ro.build.version.sdk: exit status 127: /system/bin/sh: getprop: inaccessible or not found; " +
				"cat /system/build.prop /vendor/build.prop /product/build.prop: exit status 1: cat: /system/build.prop: Permission denied"},
		{name: "getprop prints garbage", edit: func(rs []Result) { rs[factAPI] = ok("unknown\n") }, buildProp: &Result{Stdout: []byte("ro.build.version.sdk=\n")},
			err: `getprop ro.build.version.sdk printed "unknown\n", want an API level; not in /system/build.prop`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := base()
			tc.edit(rs)
			if got := needBuildProp(rs); got != (tc.buildProp != nil) {
				t.Errorf("needBuildProp = %v", got)
			}
			f, notes, err := parseFacts(rs, tc.buildProp)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("err %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The 60 Hz capture's only mode says "fps=60.000004".
			wantHz := 60.000004
			if tc.noHz {
				wantHz = 0
			}
			if f.RefreshHz != wantHz {
				t.Errorf("RefreshHz = %v, want %v", f.RefreshHz, wantHz)
			}
			if f.Cores != tc.cores || f.CoresSource != tc.source || f.API != tc.api || f.Model != tc.model || f.ABI != "arm64-v8a" ||
				!slices.Equal(notes, tc.notes) {
				t.Errorf("got %d cores from %q, API %d, model %q, ABI %q, notes\n%s\nwant %d from %q, API %d, model %q, notes\n%s",
					f.Cores, f.CoresSource, f.API, f.Model, f.ABI, strings.Join(notes, "\n"), tc.cores, tc.source, tc.api, tc.model, strings.Join(tc.notes, "\n"))
			}
		})
	}
}

// The server is found as the adb command finds it: Options.Server, else
// ADB_SERVER_SOCKET, else ANDROID_ADB_SERVER_ADDRESS and
// ANDROID_ADB_SERVER_PORT.
func TestServerAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opt, socket, host, port, want string
		ok                            bool
	}{
		{"", "", "", "", DefaultServer, true},
		{"127.0.0.1:6000", "tcp:127.0.0.1:7000", "", "", "127.0.0.1:6000", true},
		{"", "tcp:127.0.0.1:7000", "", "", "127.0.0.1:7000", true},
		{"", "tcp:7001", "", "", "127.0.0.1:7001", true},
		{"", "tcp:localhost:7002", "", "", "localhost:7002", true},
		{"", "tcp:[::1]:7003", "", "", "[::1]:7003", true},
		{"", "localfilesystem:/tmp/adb", "", "", "", false},
		{"", "tcp:host:port", "", "", "", false},
		{"", "tcp:127.0.0.1:70000", "", "", "", false},
		{"", "tcp::7000", "", "", "", false},
		{"nocolon", "", "", "", "", false},
		{"", "", "", "5038", "127.0.0.1:5038", true},
		{"", "", "10.0.2.2", "5039", "10.0.2.2:5039", true},
		{"", "", "10.0.2.2", "", "10.0.2.2:5037", true},
		{"", "tcp:7004", "", "5038", "127.0.0.1:7004", true}, // ADB_SERVER_SOCKET wins, as in adb
		{"127.0.0.1:6000", "", "", "5038", "127.0.0.1:6000", true},
		{"", "", "", "0", "", false},
		{"", "", "", "65536", "", false},
		{"", "", "", "five", "", false},
	}
	for _, tc := range tests {
		env := map[string]string{"ADB_SERVER_SOCKET": tc.socket, "ANDROID_ADB_SERVER_ADDRESS": tc.host, "ANDROID_ADB_SERVER_PORT": tc.port}
		got, err := serverAddr(tc.opt, func(k string) string { return env[k] })
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("serverAddr(%q, %v) = %q, %v; want %q, ok %v", tc.opt, env, got, err, tc.want, tc.ok)
		}
	}
}

func TestPickDevice(t *testing.T) {
	t.Parallel()
	list := "emulator-5554          device product:sdk_gphone64 model:sdk_gphone64_x86_64 device:emu64x transport_id:1\n" +
		"R58M12345              unauthorized usb:1-1 transport_id:2\n" +
		"0123456789             no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:3\n" +
		"127.0.0.1:15555        device product:panther model:Pixel_7 device:panther transport_id:4\n"
	devs := parseDevices(list)
	wantDevs := []DeviceInfo{
		{"emulator-5554", "device", "sdk_gphone64_x86_64"},
		{"R58M12345", "unauthorized", ""},
		{"0123456789", "no permissions", ""},
		{"127.0.0.1:15555", "device", "Pixel_7"},
	}
	if !slices.Equal(devs, wantDevs) {
		t.Fatalf("parseDevices = %v\nwant %v", devs, wantDevs)
	}
	tests := []struct {
		name   string
		devs   []DeviceInfo
		serial string
		want   string
		err    error
		quote  []string // text the error must show
	}{
		{"named", devs, "127.0.0.1:15555", "127.0.0.1:15555", nil, nil},
		{"only online", devs[1:], "", "127.0.0.1:15555", nil, nil},
		{"many", devs, "", "", ErrManyDevices, []string{"emulator-5554 (device, model sdk_gphone64_x86_64)", "R58M12345 (unauthorized)", "127.0.0.1:15555 (device, model Pixel_7)", "ANDROID_SERIAL"}},
		{"none", nil, "", "", ErrNoDevice, []string{"none attached"}},
		{"none online", devs[1:3], "", "", ErrNoDevice, []string{"R58M12345 (unauthorized)"}},
		{"named missing", devs, "nope", "", ErrNoDevice, []string{`"nope" not found`, "emulator-5554"}},
		{"named unauthorized", devs, "R58M12345", "", ErrNoDevice, []string{"unauthorized"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := pickDevice(tc.devs, tc.serial)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if tc.err == nil && got.Serial != tc.want {
				t.Errorf("picked %q, want %q", got.Serial, tc.want)
			}
			for _, q := range tc.quote {
				if !strings.Contains(err.Error(), q) {
					t.Errorf("error %q does not show %q", err, q)
				}
			}
		})
	}
}

func FuzzParseDevices(f *testing.F) {
	f.Add("emulator-5554          device product:sdk model:x device:y transport_id:1\n")
	f.Add("0123 no permissions (x); see [y] usb:1-2\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range parseDevices(s) {
			if d.Serial == "" || d.State == "" || strings.ContainsAny(d.Serial, " \t\n") {
				t.Fatalf("bad row %+v", d)
			}
		}
	})
}
