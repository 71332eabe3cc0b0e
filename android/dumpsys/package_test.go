package dumpsys

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParsePackageListF(t *testing.T) {
	got, err := ParsePackageList(fixtures.Read(t, "package_ps/xiaomi_pad6_api34_pm_list_packages_f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 322 {
		t.Fatalf("%d packages, want 322", len(got))
	}
	checks := map[int]PackageEntry{
		0: {Name: "com.miui.miwallpaper.config.overlay", Path: "/product/overlay/MIWallpaperOverlay.apk", UID: -1},
		// '=' inside the path (base64 padding): the name follows the last '='.
		9: {Name: "io.github.muntashirakon.AppManager",
			Path: "/data/app/~~bt-GwgDT0B0WlSsvXrZynw==/io.github.muntashirakon.AppManager-Vgj7nt0khQox6qBv7ngwMQ==/base.apk", UID: -1},
		321: {Name: "com.android.credentialmanager", Path: "/system/priv-app/CredentialManager/CredentialManager.apk", UID: -1},
	}
	for i, want := range checks {
		if got[i] != want {
			t.Errorf("#%d = %+v, want %+v", i, got[i], want)
		}
	}
}

func TestParsePackageListU(t *testing.T) {
	// `pm list packages -U` / `-f -U` (no real capture in the corpus).
	in := "package:com.android.chrome uid:10096\r\npackage:com.example.app uid:10123\r\n" +
		"package:/data/app/~~a==/com.x-b==/base.apk=com.x uid:10200,1010200\r\npackage:android uid:1000\r\n"
	got, err := ParsePackageList([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []PackageEntry{
		{Name: "com.android.chrome", UID: 10096}, {Name: "com.example.app", UID: 10123},
		{Name: "com.x", Path: "/data/app/~~a==/com.x-b==/base.apk", UID: 10200}, {Name: "android", UID: 1000},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for name, in := range map[string]string{
		"no prefix": "com.a uid:1\n",
		"bad uid":   "package:com.a uid:x\n",
		"bad name":  "package:com.a;rm\n",
		"no name":   "package:\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParsePackageList([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestValidatePackage(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"com.example.app", true},
		{"com.android.chrome", true},
		{"tv.danmaku.bili", true},
		{"com.Example_1.a2", true},
		{"com.a_b.c1", true},
		{"", false},
		{"com", false},                           // one segment
		{"android", false},                       // the platform, not an app
		{"com.x;reboot", false},                  // command separator
		{"com.a;rm -rf", false},                  // command separator
		{"com.x reboot", false},                  // space
		{"com.x'", false},                        // quote
		{`com.x"`, false},                        // quote
		{"com.$(id)", false},                     // command substitution
		{"$(id)", false},                         // command substitution
		{"com.`id`", false},                      // command substitution
		{"com..x", false},                        // empty segment
		{".com.x", false},                        // empty segment
		{"com.x.", false},                        // empty segment
		{"1com.a", false},                        // segment starts with a digit
		{"com.1x", false},                        // segment starts with a digit
		{"com._x", false},                        // segment starts with '_'
		{"com.x:remote", false},                  // a process name, not a package
		{"com/a", false},                         // a path
		{"com.x\n", false},                       // newline
		{"com.x&", false},                        // background
		{"com.é", false},                         // non-ASCII
		{strings.Repeat("a.", 128) + "b", false}, // too long
	}
	for _, tc := range tests {
		err := ValidatePackage(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("ValidatePackage(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	// The error quotes a bounded part of what it refused.
	long := "com.x;" + strings.Repeat("y", 1<<20)
	if err := ValidatePackage(long); err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), `"com.x;yyy`) {
		t.Errorf("a %d-byte error for a %d-byte name: %.200v", len(fmt.Sprint(err)), len(long), err)
	}
}

func TestParsePidof(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  bool
	}{
		{"25910 25960 26047\n", []int{25910, 25960, 26047}, false},
		{"4292\r\n", []int{4292}, false},
		{"", []int{}, false},
		{"12 x", nil, true},
		{"0", nil, true},
	}
	for _, tc := range tests {
		got, err := ParsePidof([]byte(tc.in))
		if (err != nil) != tc.err || (!tc.err && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParsePSFixtures(t *testing.T) {
	tests := []struct {
		file string
		want []PSProcess
	}{
		{"package_ps/blog2017_ps_grep_chrome_toolbox_ps.txt", []PSProcess{
			{"u0_a96", 25910, 460, 104992, "com.android.chrome"},
			{"u0_a96", 25960, 460, 65940, "com.android.chrome:privileged_process0"},
			{"u0_i1", 26047, 460, 65916, "com.android.chrome:sandboxed_process0"},
		}},
		{"package_ps/solox50_ps_ef_findstr_bili.txt", []PSProcess{{"u0_a306", 19253, 859, -1, "tv.danmaku.bili"}}},
		{"package_ps/solox50_toybox_ps_without_A_only_shell.txt", []PSProcess{{"shell", 20536, 23106, 3704, "ps"}}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParsePS(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParsePSLayouts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []PSProcess
	}{
		{"ps -A with header", "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n" +
			"u0_a123      14035   712 15128748 142560 0                  0 S com.example.app\n" +
			"u0_a123      14102   712 14892312  90312 0                  0 S com.example.app:remote\n",
			[]PSProcess{{"u0_a123", 14035, 712, 142560, "com.example.app"}, {"u0_a123", 14102, 712, 90312, "com.example.app:remote"}}},
		{"ps -ef with header and args", "UID            PID  PPID C STIME TTY          TIME CMD\n" +
			"u0_a123      14035   712 3 10:01:02 ?     00:00:09 com.example.app\n" +
			"shell        15000 14990 0 10:05:00 pts/0 00:00:00 sh -c ps -ef\n",
			[]PSProcess{{"u0_a123", 14035, 712, -1, "com.example.app"}, {"shell", 15000, 14990, -1, "sh -c ps -ef"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePS([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for name, in := range map[string]string{
		"bad header": "USER NAME\n",
		"bad pid":    "u0_a1 x 1 2 3 0 0 S a\n",
		"bad ppid":   "u0_a1 1 x 2 3 0 0 S a\n",
		"short":      "u0_a1 1 2 3\n",
		"bad rss":    "u0_a1 1 2 3 big 0 0 S a\n",
		"short ef":   "UID PID PPID C STIME TTY TIME CMD\nu0 1 2 3\n",
		"one field":  "u0_a1\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParsePS([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestPackageProcesses(t *testing.T) {
	procs, err := ParsePS(fixtures.Read(t, "package_ps/blog2017_ps_grep_chrome_toolbox_ps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	procs = append(procs, PSProcess{Name: "com.android.chromex", PID: 1}, PSProcess{Name: "com.android", PID: 2})
	got := PackageProcesses(procs, "com.android.chrome")
	var pids []int
	for _, p := range got {
		pids = append(pids, p.PID)
	}
	if !reflect.DeepEqual(pids, []int{25910, 25960, 26047}) {
		t.Errorf("pids = %v, want the main, privileged and sandboxed processes", pids)
	}
}

func TestParseDumpsysPackage(t *testing.T) {
	p, err := ParsePackage(fixtures.Read(t, "package_ps/blog2017_dumpsys_package_grep_userId.txt"))
	if err != nil || p.UserID != 10096 || p.Debuggable() || p.VersionCode != -1 {
		t.Errorf("grep userId capture: %+v, %v", p, err)
	}
	// The shape of a full `dumpsys package` block (no full capture in the corpus).
	full := "Packages:\n  Package [com.example.app] (3f2a1b):\n    userId=10123\n    pkg=Package{7c1d2e com.example.app}\n" +
		"    versionCode=42 minSdk=24 targetSdk=34\n    versionName=1.4.2\n" +
		"    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE ]\n" +
		"    User 0: ceDataInode=1 installed=true\n"
	p, err = ParsePackage([]byte(full))
	want := PackageInfo{Package: "com.example.app", UserID: 10123, Flags: []string{"DEBUGGABLE", "HAS_CODE", "ALLOW_CLEAR_USER_DATA", "ALLOW_BACKUP"}, VersionName: "1.4.2", VersionCode: 42}
	if err != nil || !reflect.DeepEqual(p, want) || !p.Debuggable() {
		t.Errorf("got %+v, %v\nwant %+v", p, err, want)
	}
	if _, err := ParsePackage([]byte("Dexopt state:\n  Unable to find package: com.nope\n")); !errors.Is(err, ErrPackageNotFound) {
		t.Errorf("not installed: err = %v", err)
	}
	for name, in := range map[string]string{
		"bad userId":  "    userId=abc\n",
		"bad flags":   "    userId=1\n    flags=[ DEBUGGABLE\n",
		"bad version": "    userId=1\n    versionCode=x minSdk=1\n",
		"bad header":  "  Package [com.example.app (3f2a1b):\n    userId=1\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParsePackage([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestParseTopFixtures(t *testing.T) {
	tests := []struct {
		file     string
		capacity float64
		n        int
		checks   map[int]TopProcess
	}{
		// Captured with terminal escape sequences and CR CR LF line ends.
		{"package_ps/mixelmeza_top_n1_m10_with_ansi.txt", 600, 10, map[int]TopProcess{
			0: {PID: 4024, User: "shell", CPUPct: 3.8, MemPct: 0.1, Args: "top -n 1 -m 10"},
			4: {PID: 3794, User: "u0_a241", CPUPct: 0, MemPct: 12.1, Args: "com.example.app+"},
			9: {PID: 3718, User: "shell", CPUPct: 0, MemPct: 0, Args: "sh -c logcat -v+"},
		}},
		{"package_ps/stephen_blog_sony_top_snapshot.txt", 800, 18, map[int]TopProcess{
			0:  {PID: 8460, User: "u0_a417", CPUPct: 22.6, MemPct: 7.6, Args: "com.netease.cloudmusic"},
			1:  {PID: 8803, User: "u0_a417", CPUPct: 10.6, MemPct: 2.6, Args: "com.netease.cloudmusic:play"},
			15: {PID: 4513, User: "root", CPUPct: 0.3, MemPct: 0, Args: "msm_irqbalance -f /system/vendor/etc/msm_irqbalance.conf"},
			16: {PID: 3231, User: "network_sta+", CPUPct: 0.3, MemPct: 0.8, Args: "com.android.networkstack.process"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParseTop(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got.CPUCapacityPct != tc.capacity || len(got.Procs) != tc.n {
				t.Fatalf("capacity %v, %d processes; want %v, %d", got.CPUCapacityPct, len(got.Procs), tc.capacity, tc.n)
			}
			for i, want := range tc.checks {
				if got.Procs[i] != want {
					t.Errorf("#%d = %+v, want %+v", i, got.Procs[i], want)
				}
			}
		})
	}
	for name, in := range map[string]string{
		"empty":     "",
		"no ARGS":   "  PID USER\n",
		"short row": "  PID USER [%CPU] ARGS\n 1 root\n",
		"bad pid":   "  PID USER [%CPU] ARGS\n x root 1.0 a\n",
		"bad cpu":   "  PID USER [%CPU] ARGS\n 1 root lots a\n",
		"bad total": "x%cpu\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseTop([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func FuzzParsePackageAndPS(f *testing.F) {
	memFuzzAddFixtures(f,
		"package_ps/blog2017_ps_grep_chrome_toolbox_ps.txt", "package_ps/solox50_ps_ef_findstr_bili.txt",
		"package_ps/solox50_toybox_ps_without_A_only_shell.txt", "package_ps/mixelmeza_top_n1_m10_with_ansi.txt",
		"package_ps/blog2017_dumpsys_package_grep_userId.txt")
	f.Add([]byte("package:/data/app/~~a==/com.x-b==/base.apk=com.x uid:10200\n"))
	f.Add([]byte("123 456\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if pkgs, err := ParsePackageList(b); err == nil {
			for _, p := range pkgs {
				if p.Name != PlatformPackage && ValidatePackage(p.Name) != nil {
					t.Fatalf("invalid name %q accepted", p.Name)
				}
			}
		}
		_, _ = ParsePidof(b)
		_, _ = ParsePS(b)
		_, _ = ParseTop(b)
		_, _ = ParsePackage(b)
	})
}
