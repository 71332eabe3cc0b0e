package adbx

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseRefreshHz(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want float64
	}{
		// Values read by hand from the captures: "renderFrameRate 120.00001"
		// and the only mode's "fps=60.000004".
		{"pixel 120 Hz capture", fixtures.Read(t, "display/flashlight_dumpsys_display_grep_120hz_pixel.txt"), 120.00001},
		{"60 Hz capture", fixtures.Read(t, "display/flashlight_dumpsys_display_grep_60hz.txt"), 60.000004},
		{"active mode, not the first", []byte(`  DisplayDeviceInfo{"Built-in Screen": 1080 x 2400, modeId 2, defaultModeId 1, supportedModes [{id=1, width=1080, height=2400, fps=60.0}, {id=2, width=1080, height=2400, fps=90.0}]}`), 90},
		{"mRefreshRate only", []byte("  mRefreshRate=59.94\n"), 59.94},
		{"nothing", []byte("Can't find service: display\n"), 0},
		{"empty", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseRefreshHz(tc.in); got != tc.want {
				t.Errorf("parseRefreshHz = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzParseRefreshHz(f *testing.F) {
	f.Add(fixtures.Read(f, "display/flashlight_dumpsys_display_grep_120hz_pixel.txt"))
	f.Add(fixtures.Read(f, "display/flashlight_dumpsys_display_grep_60hz.txt"))
	f.Add([]byte("DisplayDeviceInfo{ modeId 1, {id=1, fps=."))
	f.Fuzz(func(t *testing.T, b []byte) {
		if hz := parseRefreshHz(b); hz < 0 {
			t.Fatalf("negative refresh rate %v", hz)
		}
	})
}

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"0-7", 8, true},
		{"0", 1, true},
		{"0-3,6-7", 6, true},
		{"0,2,4", 3, true},
		{"", 0, false},
		{"7-0", 0, false},
		{"a-b", 0, false},
		{"0-99999999999", 0, false},
	}
	for _, tc := range tests {
		got, ok := parseCPUList(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCPUList(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParsePS(t *testing.T) {
	// The chrome capture went through grep, which dropped the toolbox ps
	// header; SOURCES.md records it as USER PID PPID VSIZE RSS WCHAN PC S NAME.
	chrome := append([]byte("USER PID PPID VSIZE RSS WCHAN PC S NAME\n"), fixtures.Read(t, "package_ps/blog2017_ps_grep_chrome_toolbox_ps.txt")...)
	tests := []struct {
		name string
		in   []byte
		want []Process
	}{
		{"toybox ps without -A", fixtures.Read(t, "package_ps/solox50_toybox_ps_without_A_only_shell.txt"), []Process{{20536, "ps"}}},
		{"toolbox ps", chrome, []Process{
			{25910, "com.android.chrome"},
			{25960, "com.android.chrome:privileged_process0"},
			{26047, "com.android.chrome:sandboxed_process0"},
		}},
		{"ps -A -o PID,NAME", []byte("  PID NAME\n    1 init\n 4242 com.example.app\n 4250 com.example.app:remote\n 4300 com.example.application\n"),
			[]Process{{1, "init"}, {4242, "com.example.app"}, {4250, "com.example.app:remote"}, {4300, "com.example.application"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePS(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[:min(len(got), len(tc.want))], tc.want) || len(got) < len(tc.want) {
				t.Errorf("got %v, want it to start with %v", got, tc.want)
			}
		})
	}
}

func TestParsePSErrors(t *testing.T) {
	for _, in := range []string{"", "no header here\n", "PID NAME\nx init\n"} {
		if _, err := parsePS([]byte(in)); err == nil {
			t.Errorf("parsePS(%q): no error", in)
		}
	}
}

func FuzzParsePS(f *testing.F) {
	f.Add(fixtures.Read(f, "package_ps/solox50_toybox_ps_without_A_only_shell.txt"))
	f.Add([]byte("  PID NAME\n    1 init\n 4242 com.example.app\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		procs, err := parsePS(b)
		for _, p := range procs {
			if p.PID <= 0 || p.Name == "" {
				t.Fatalf("bad process %+v (err %v)", p, err)
			}
		}
	})
}

func TestParsePMListUID(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		uid       int
		found, ok bool
	}{
		{"listed", "package:com.example.app uid:10123\n", 10123, true, true},
		{"substring matches first", "package:com.example.app.debug uid:10200\npackage:com.example.app uid:10123\n", 10123, true, true},
		{"two users", "package:com.example.app uid:10123,1010123\n", 10123, true, true},
		{"not installed", "", 0, false, true},
		{"only others", "package:com.example.application uid:10300\n", 0, false, true},
		{"no -U support", "package:com.example.app\n", 0, false, false},
		{"usage message", "Error: Unknown option: -U\n", 0, false, false},
	}
	for _, tc := range tests {
		uid, found, ok := parsePMListUID([]byte(tc.in), "com.example.app")
		if uid != tc.uid || found != tc.found || ok != tc.ok {
			t.Errorf("%s: got %d %v %v, want %d %v %v", tc.name, uid, found, ok, tc.uid, tc.found, tc.ok)
		}
	}
}

func TestParseDumpsysPackage(t *testing.T) {
	// The capture is the userId line alone (grep); give it its section.
	grep := fixtures.Read(t, "package_ps/blog2017_dumpsys_package_grep_userId.txt")
	chrome := append([]byte("Packages:\n  Package [com.android.chrome] (3f2a1b0):\n"), grep...)
	info, found := parseDumpsysPackage(chrome, "com.android.chrome")
	if !found || info.uid != 10096 || info.debuggable {
		t.Errorf("chrome capture: got %+v found %v, want uid 10096 (read from the capture), not debuggable", info, found)
	}
	two := []byte(`Packages:
  Package [com.example.other] (1):
    userId=10001
    flags=[ DEBUGGABLE HAS_CODE ]
  Package [com.example.app] (2):
    userId=10123
    pkg=Package{2 com.example.app}
    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA DEBUGGABLE ]
    User 0: ceDataInode=1 installed=true
`)
	info, found = parseDumpsysPackage(two, "com.example.app")
	if !found || info.uid != 10123 || !info.debuggable {
		t.Errorf("two packages: got %+v found %v, want uid 10123, debuggable", info, found)
	}
	info, found = parseDumpsysPackage(two, "com.example")
	if found {
		t.Errorf("prefix of another package: found %+v", info)
	}
	if _, found := parseDumpsysPackage([]byte("Unable to find package: com.example.app\n"), "com.example.app"); found {
		t.Error("missing package reported as found")
	}
}

func FuzzParseDumpsysPackage(f *testing.F) {
	f.Add([]byte("  Package [com.example.app] (2):\n    userId=10123\n    flags=[ DEBUGGABLE ]\n"))
	f.Add(fixtures.Read(f, "package_ps/blog2017_dumpsys_package_grep_userId.txt"))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, found := parseDumpsysPackage(b, "com.example.app")
		if !found && (info.uid != -1 || info.debuggable) {
			t.Fatalf("not found but got %+v", info)
		}
		if found && !bytes.Contains(b, []byte("Package [com.example.app]")) {
			t.Fatal("found without its header")
		}
	})
}

func TestParseFacts(t *testing.T) {
	ok := func(s string) Result { return Result{Stdout: []byte(s)} }
	fail := Result{Stderr: []byte("not found"), ExitCode: 127}
	stat8 := Result{Stdout: fixtures.Read(t, "proc/unidbg_rootfs_8core_2025_proc_stat.txt")}
	rs := []Result{
		ok("Pixel 7\n"), ok("Google\n"), ok("arm64-v8a\n"), ok("33\n"), ok("13\n"),
		fail, ok("0-3,4-7\n"), fail,
		{Stdout: fixtures.Read(t, "display/flashlight_dumpsys_display_grep_120hz_pixel.txt")},
		ok("0\n"), stat8,
	}
	f, err := parseFacts(rs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Facts{Model: "Pixel 7", Manufacturer: "Google", ABI: "arm64-v8a", API: 33, Release: "13",
		Cores: 8, CoresSource: "/sys/devices/system/cpu/possible", ClockTicks: 100, RefreshHz: 120.00001, Root: true,
		Notes: []string{
			`cores: nproc: exit status 127: not found; counted 8 from /sys/devices/system/cpu/possible`,
			`clock ticks: getconf CLK_TCK: exit status 127: not found; assuming 100, USER_HZ on every Android kernel`,
		}}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
	rs[3] = ok("\n")
	if _, err := parseFacts(rs, &Result{Stdout: []byte("ro.build.version.sdk=\n")}); err == nil || !strings.Contains(err.Error(), "getprop ro.build.version.sdk") {
		t.Errorf("missing API level: err %v, want one naming the command", err)
	}
}

// TestParseFactsFallbacks runs parseFacts over what shells without nproc,
// the cpu possible file or getprop print (the real /proc/stat captures of
// an 8-core phone and of a phone with one core online), and checks each
// fallback and each failure is named with the command, its exit status and
// its stderr.
func TestParseFactsFallbacks(t *testing.T) {
	ok := func(s string) Result { return Result{Stdout: []byte(s)} }
	missing := func(cmd string) Result {
		return Result{Stderr: []byte("/system/bin/sh: " + cmd + ": inaccessible or not found\n"), ExitCode: 127}
	}
	noFile := Result{Stderr: []byte("cat: /sys/devices/system/cpu/possible: No such file or directory\n"), ExitCode: 1}
	stat8 := Result{Stdout: fixtures.Read(t, "proc/unidbg_rootfs_8core_2025_proc_stat.txt")}
	stat1 := Result{Stdout: fixtures.Read(t, "proc/goclever_insignia5_api17_proc_stat.txt")}
	base := func() []Result {
		return []Result{
			ok("Pixel 7\n"), ok("Google\n"), ok("arm64-v8a\n"), ok("33\n"), ok("13\n"),
			ok("8\n"), ok("0-7\n"), ok("100\n"), ok(""), ok("2000\n"), stat8,
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
		err       string
	}{
		{name: "all agree", edit: func([]Result) {}, cores: 8, source: "nproc", api: 33, model: "Pixel 7"},
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
			rs := base()
			tc.edit(rs)
			if got := needBuildProp(rs); got != (tc.buildProp != nil) {
				t.Errorf("needBuildProp = %v", got)
			}
			f, err := parseFacts(rs, tc.buildProp)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("err %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Cores != tc.cores || f.CoresSource != tc.source || f.API != tc.api || f.Model != tc.model || f.ABI != "arm64-v8a" ||
				!slices.Equal(f.Notes, tc.notes) {
				t.Errorf("got %d cores from %q, API %d, model %q, ABI %q, notes\n%s\nwant %d from %q, API %d, model %q, notes\n%s",
					f.Cores, f.CoresSource, f.API, f.Model, f.ABI, strings.Join(f.Notes, "\n"), tc.cores, tc.source, tc.api, tc.model, strings.Join(tc.notes, "\n"))
			}
		})
	}
}

func FuzzParseBuildProp(f *testing.F) {
	f.Add([]byte("# begin build properties\nro.build.version.sdk=34\r\nro.product.model = Pixel 8\n=x\nnoequals\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for k, v := range parseBuildProp(b) {
			if k == "" || strings.ContainsAny(k, "\n=") || strings.Contains(v, "\n") || strings.TrimSpace(k) != k {
				t.Fatalf("bad property %q=%q", k, v)
			}
		}
	})
}

func TestServerAddr(t *testing.T) {
	tests := []struct {
		opt, env, want string
		ok             bool
	}{
		{"", "", DefaultServer, true},
		{"127.0.0.1:6000", "tcp:127.0.0.1:7000", "127.0.0.1:6000", true},
		{"", "tcp:127.0.0.1:7000", "127.0.0.1:7000", true},
		{"", "tcp:7001", "127.0.0.1:7001", true},
		{"", "tcp:localhost:7002", "localhost:7002", true},
		{"", "tcp:[::1]:7003", "[::1]:7003", true},
		{"", "localfilesystem:/tmp/adb", "", false},
		{"", "tcp:host:port", "", false},
		{"", "tcp:127.0.0.1:70000", "", false},
		{"", "tcp::7000", "", false},
		{"nocolon", "", "", false},
	}
	for _, tc := range tests {
		got, err := serverAddr(tc.opt, tc.env)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("serverAddr(%q, %q) = %q, %v; want %q, ok %v", tc.opt, tc.env, got, err, tc.want, tc.ok)
		}
	}
}

func TestPickDevice(t *testing.T) {
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

func FuzzParsePMListUID(f *testing.F) {
	f.Add([]byte("package:com.example.app uid:10123\n"))
	f.Add([]byte("package:com.example.app uid:10123,1010123\npackage:android uid:1000\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		uid, found, ok := parsePMListUID(b, "com.example.app")
		if (found && !ok) || uid < 0 || (!found && uid != 0) {
			t.Fatalf("uid %d found %v ok %v", uid, found, ok)
		}
	})
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-7", "0-3,6-7", "0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := parseCPUList(s)
		if ok != (n > 0) || n > len(s)<<16 {
			t.Fatalf("parseCPUList(%q) = %d, %v", s, n, ok)
		}
	})
}

func FuzzCountCPULines(f *testing.F) {
	f.Add(fixtures.Read(f, "proc/unidbg_rootfs_8core_2025_proc_stat.txt"))
	f.Add(fixtures.Read(f, "proc/goclever_insignia5_api17_proc_stat.txt"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := countCPULines(b)
		if n < 0 || n > bytes.Count(b, []byte("cpu")) {
			t.Fatalf("%d cpuN lines in %q", n, b)
		}
	})
}
