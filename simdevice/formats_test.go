package simdevice

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// capture returns a real capture as UTF-8 text with "\n" lines.
func capture(t *testing.T, name string) string {
	t.Helper()
	return string(devtext.Normalize(fixtures.Read(t, name)))
}

// labels returns the "Label:" prefixes of the lines from the first line
// starting with from up to (not including) the first line starting with to.
func labels(text, from, to string) []string {
	var out []string
	in := false
	for _, ln := range strings.Split(text, "\n") {
		if strings.HasPrefix(ln, from) {
			in = true
		}
		if in && to != "" && strings.HasPrefix(ln, to) && len(out) > 0 {
			break
		}
		if in {
			if l, _, ok := strings.Cut(ln, ":"); ok {
				out = append(out, l)
			}
		}
	}
	return out
}

// scrolled returns a world on api that has rendered a few seconds of
// janky scrolling.
func scrolled(t *testing.T, api int, preset string) *World {
	t.Helper()
	w, clk := newTestWorld(t, Config{API: api, Workload: mustPreset(t, preset)})
	wlaunch(t, w)
	clk.advance(4 * time.Second)
	return w
}

func TestGfxinfoShapeMatchesCaptures(t *testing.T) {
	cases := []struct {
		api     int
		capture string
	}{
		{28, "gfxinfo_summary/droidmonitor_api28_android9_chrome_summary.txt"},
		{30, "gfxinfo_summary/flashlight_reactnativefeed_with_profile_table.txt"},
		{33, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt"},
		{34, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint("api", c.api), func(t *testing.T) {
			real := capture(t, c.capture)
			real = strings.TrimPrefix(real, "\ufeff")
			ours := wdumpsys(scrolled(t, c.api, "janky-scroll"), "gfxinfo", PresetPackage, "framestats")
			if !regexp.MustCompile(`^Applications Graphics Acceleration Info:\nUptime: \d+ Realtime: \d+\n\n\*\* Graphics info for pid \d+ \[com\.perfgate\.demo\] \*\*\n\nStats since: \d+ns\n`).MatchString(ours) {
				t.Errorf("header:\n%s", ours[:300])
			}
			end := "HISTOGRAM"
			if c.api >= 31 {
				end = "GPU HISTOGRAM"
			}
			want := labels(real, "Stats since", end)
			got := labels(ours, "Stats since", end)
			if len(want) < 13 || !slices.Equal(got, want) {
				t.Errorf("stats labels\n got %q\nwant %q", got, want)
			}
			if c.api >= 31 {
				// The per-window block repeats the stats under "Window:".
				if !strings.Contains(ours, "\nWindow: com.perfgate.demo/com.perfgate.demo.MainActivity\nStats since: ") {
					t.Error("no Window: block")
				}
				hdr := func(s string) string {
					_, rest, _ := strings.Cut(s, "---PROFILEDATA---\n")
					h, _, _ := strings.Cut(rest, "\n")
					return h
				}
				if hdr(ours) != hdr(real) {
					t.Errorf("PROFILEDATA header\n got %s\nwant %s", hdr(ours), hdr(real))
				}
			}
		})
	}
}

// daveyFields lists the field names of a Davey! line.
func daveyFields(line string) []string {
	_, rest, _ := strings.Cut(line, "; ")
	var out []string
	for _, kv := range strings.Split(rest, ", ") {
		if k, _, ok := strings.Cut(kv, "="); ok {
			out = append(out, k)
		}
	}
	return out
}

// No framestats CSV capture exists for API 24-30; the Davey! lines of those
// releases name the same columns in the same order.
func TestProfileHeaderMatchesDaveyFields(t *testing.T) {
	old := capture(t, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt")
	var davey string
	for _, ln := range strings.Split(old, "\n") {
		if strings.Contains(ln, "Davey!") {
			davey = ln
		}
	}
	want := daveyFields(davey)
	got := strings.Split(strings.TrimSuffix(format.ProfileHeader(28), ","), ",")
	if !slices.Equal(got, want) {
		t.Errorf("API 28 header\n got %q\nwant %q", got, want)
	}
	got30 := strings.Split(strings.TrimSuffix(format.ProfileHeader(30), ","), ",")
	if !slices.Equal(got30, append(want, "GpuCompleted")) {
		t.Errorf("API 30 header %q", got30)
	}
	// Our own Davey lines use the capture's field lists too.
	a12 := capture(t, "logcat_choreographer/davey_revanced634_android12_flags1.txt")
	for _, c := range []struct {
		api  int
		want []string
	}{{28, want}, {33, daveyFields(strings.TrimSpace(a12))}} {
		wl := mustPreset(t, "smooth-scroll")
		wl.Phases[0].Janks = []Jank{{At: []int{3}, Ms: 720}}
		w, clk := newTestWorld(t, Config{API: c.api, Workload: wl})
		wlaunch(t, w)
		clk.advance(2 * time.Second)
		var o, e bytes.Buffer
		w.Logcat(context.Background(), []string{"-d", "OpenGLRenderer:I", "*:S"}, &o, &e)
		if got := daveyFields(strings.TrimSpace(o.String())); !slices.Equal(got, c.want) {
			t.Errorf("api %d Davey fields\n got %q\nwant %q", c.api, got, c.want)
		}
	}
}

func TestMeminfoShapeMatchesCaptures(t *testing.T) {
	cases := []struct {
		api     int
		capture string
		total   *regexp.Regexp
	}{
		{28, "meminfo/droidmonitor_api23_android60.txt", regexp.MustCompile(`(?m)^ +TOTAL: +\d+ +TOTAL SWAP \(KB\): +\d+$`)},
		{30, "meminfo/frameprobe_samsung_s23_api34.txt", regexp.MustCompile(`(?m)^ +TOTAL PSS: +\d+ +TOTAL RSS: +\d+ +TOTAL SWAP PSS: +\d+$`)},
		{34, "meminfo/frameprobe_samsung_s23_api34.txt", regexp.MustCompile(`(?m)^ +TOTAL PSS: +\d+ +TOTAL RSS: +\d+ +TOTAL SWAP PSS: +\d+$`)},
	}
	for _, c := range cases {
		real := capture(t, c.capture)
		w := scrolled(t, c.api, "memory-leak")
		ours := wdumpsys(w, "meminfo", PresetPackage)
		head := func(s string) string {
			i := strings.Index(s, "** MEMINFO")
			lines := strings.SplitN(s[i:], "\n", 5)
			return strings.Join(lines[1:4], "\n")
		}
		if head(ours) != head(real) {
			t.Errorf("api %d table header\n got\n%s\nwant\n%s", c.api, head(ours), head(real))
		}
		if got, want := labels(ours, " App Summary", " Objects"), labels(real, " App Summary", " Objects"); !slices.Equal(got[:8], want[:8]) {
			t.Errorf("api %d App Summary labels\n got %q\nwant %q", c.api, got, want)
		}
		if !c.total.MatchString(ours) || !c.total.MatchString(real) {
			t.Errorf("api %d: TOTAL line differs from the capture's form", c.api)
		}
		m, err := dumpsys.ParseMeminfo([]byte(ours))
		if err != nil {
			t.Fatalf("api %d: dumpsys.ParseMeminfo: %v", c.api, err)
		}
		tr := w.Truth()
		if m.PSSKB != tr.PSSKiB || (c.api >= 30 && m.RSSKB != tr.RSSKiB) {
			t.Errorf("api %d: parsed PSS/RSS %d/%d, truth %d/%d", c.api, m.PSSKB, m.RSSKB, tr.PSSKiB, tr.RSSKiB)
		}
		if m.Summary.JavaHeapKB != tr.JavaKiB || m.Summary.NativeHeapKB != tr.NativeKiB {
			t.Errorf("api %d: App Summary java/native %d/%d, truth %d/%d", c.api, m.Summary.JavaHeapKB, m.Summary.NativeHeapKB, tr.JavaKiB, tr.NativeKiB)
		}
	}
	w, _ := newTestWorld(t, Config{})
	if got, want := wdumpsys(w, "meminfo", PresetPackage), strings.Replace(capture(t, "meminfo/alpicut_no_process_found.txt"), "com.alpicut.app", PresetPackage, 1); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("not running: %q, want %q", got, want)
	}
}

func TestProcShapesMatchCaptures(t *testing.T) {
	w := scrolled(t, 33, "smooth-scroll")
	pid := w.Truth().Pids[0]
	read := func(p string) string {
		b, err := w.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// /proc/stat: the same line kinds and 10 counters per cpu line.
	real := capture(t, "proc/unidbg_rootfs_8core_2025_proc_stat.txt")
	keys := func(s string) (k []string, cpuFields []int) {
		for _, ln := range strings.Split(strings.TrimSpace(s), "\n") {
			f := strings.Fields(ln)
			k = append(k, strings.TrimRight(f[0], "0123456789"))
			if strings.HasPrefix(f[0], "cpu") {
				cpuFields = append(cpuFields, len(f)-1)
			}
		}
		return k, cpuFields
	}
	gk, gf := keys(read("/proc/stat"))
	wk, wf := keys(real)
	if !slices.Equal(gk, wk) || !slices.Equal(gf, wf) {
		t.Errorf("/proc/stat lines %q %v, capture %q %v", gk, gf, wk, wf)
	}
	// /proc/<pid>/stat: 52 fields like the capture; comm is the name's tail.
	fields := func(s string) int {
		i := strings.LastIndexByte(s, ')')
		return 2 + len(strings.Fields(s[i+1:]))
	}
	if got, want := fields(read(fmt.Sprintf("/proc/%d/stat", pid))), fields(capture(t, "proc/androidgodeye_pid_stat_comm_tail_truncated.txt")); got != want || want != 52 {
		t.Errorf("pid stat fields %d, capture %d", got, want)
	}
	names, _ := w.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var comms []string
	for _, tid := range names {
		s := read(fmt.Sprintf("/proc/%d/task/%s/stat", pid, tid))
		if fields(s) != 52 {
			t.Errorf("task %s: %d fields", tid, fields(s))
		}
		comms = append(comms, s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')])
	}
	for _, want := range []string{"m.perfgate.demo", "RenderThread", "Jit thread pool", fmt.Sprintf("Binder:%d_1", pid)} {
		if !slices.Contains(comms, want) {
			t.Errorf("no thread %q in %q", want, comms)
		}
	}
	// /proc/<pid>/status: every key is one a real kernel prints.
	realKeys := map[string]bool{}
	for _, f := range []string{"proc/unidbg_rootfs_pid_status_apk_protect.txt", "proc/blog2017_proc_pid_status_chrome.txt"} {
		for _, ln := range strings.Split(capture(t, f), "\n") {
			k, _, _ := strings.Cut(strings.TrimSpace(ln), ":")
			realKeys[k] = true
		}
	}
	for _, ln := range strings.Split(strings.TrimSpace(read(fmt.Sprintf("/proc/%d/status", pid))), "\n") {
		if k, _, _ := strings.Cut(ln, ":"); !realKeys[k] {
			t.Errorf("status key %q is in no capture", k)
		}
	}
	// /proc/uptime: two seconds figures.
	if !regexp.MustCompile(`^\d+\.\d\d \d+\.\d\d\n$`).MatchString(read("/proc/uptime")) {
		t.Errorf("/proc/uptime %q", read("/proc/uptime"))
	}
	snap, err := procfs.ParseCPUSnapshot([]byte(read("/proc/stat") + read(fmt.Sprintf("/proc/%d/stat", pid))))
	if err != nil {
		t.Fatalf("procfs.ParseCPUSnapshot: %v", err)
	}
	if len(snap.Procs) != 1 {
		t.Errorf("parsed %d pid lines", len(snap.Procs))
	}
}

func TestTrafficShapesMatchCaptures(t *testing.T) {
	w := scrolled(t, 28, "chatty-network")
	b, err := w.ReadFile("/proc/net/xt_qtaguid/stats")
	if err != nil {
		t.Fatal(err)
	}
	real := capture(t, "traffic/lxgblog2019_xt_qtaguid_stats_header_and_uid_rows.txt")
	if got, want := strings.SplitN(string(b), "\n", 2)[0], strings.SplitN(real, "\n", 2)[0]; got != want {
		t.Errorf("xt_qtaguid header\n got %s\nwant %s", got, want)
	}
	q, err := procfs.ParseTrafficQtaguid(b)
	if err != nil {
		t.Fatalf("procfs.ParseTrafficQtaguid: %v", err)
	}
	tr := w.Truth()
	if u := q[PresetUID]; u == nil || int64(u.Total.RxBytes) != tr.RxBytes[PresetUID] || int64(u.Total.TxBytes) != tr.TxBytes[PresetUID] {
		t.Errorf("parsed app traffic %+v, truth rx %d tx %d", q[PresetUID], tr.RxBytes[PresetUID], tr.TxBytes[PresetUID])
	}

	w = scrolled(t, 34, "chatty-network")
	out := wdumpsys(w, "netstats", "detail")
	realNS := capture(t, "traffic/xiaomi_pad6_api34_dumpsys_netstats.txt")
	for _, want := range []string{"  mAppUidStatsMap:\n    uid rxBytes rxPackets txBytes txPackets\n", "Xt stats:\n", "  mIfaceStatsMap:\n    ifaceIndex ifaceName rxBytes rxPackets txBytes txPackets\n"} {
		if !strings.Contains(realNS, want) || !strings.Contains(out, want) {
			t.Errorf("netstats lacks %q (as in the capture)", want)
		}
	}
	ns, err := dumpsys.ParseNetstats([]byte(out))
	if err != nil {
		t.Fatalf("dumpsys.ParseNetstats: %v", err)
	}
	tr = w.Truth()
	if c := ns.AppUIDStats[PresetUID]; int64(c.RxBytes) != tr.RxBytes[PresetUID] || int64(c.TxBytes) != tr.TxBytes[PresetUID] {
		t.Errorf("parsed %+v, truth rx %d tx %d", c, tr.RxBytes[PresetUID], tr.TxBytes[PresetUID])
	}
	if c := ns.UIDHistory[PresetUID]; int64(c.RxBytes) != tr.RxBytes[PresetUID] {
		t.Errorf("UID stats history %+v, truth rx %d", c, tr.RxBytes[PresetUID])
	}
	dev, err := procfs.ParseTrafficNetDev(mustRead(t, w, fmt.Sprintf("/proc/%d/net/dev", tr.Pids[0])))
	if err != nil || dev["wlan0"].RxBytes == 0 {
		t.Errorf("net/dev: %v %+v", err, dev)
	}
}

func mustRead(t *testing.T, w *World, p string) []byte {
	t.Helper()
	b, err := w.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSurfaceFlingerShapes(t *testing.T) {
	w := scrolled(t, 33, "smooth-scroll")
	list := wdumpsys(w, "SurfaceFlinger", "--list")
	real := capture(t, "sf_list/solox249_android12plus_blast_findstr.txt")
	// The capture's app layer names, with its package and activity ours.
	comp := "com.KST.CS4Like_development/com.easy.game.GamePlayerActivity"
	for _, ln := range strings.Split(strings.TrimSpace(real), "\n") {
		if !strings.HasPrefix(ln, "SurfaceView[") && !strings.HasPrefix(ln, "Background for") && !strings.HasPrefix(ln, "Bounds for") {
			continue
		}
		want := strings.Replace(ln, comp, "com.perfgate.demo/com.perfgate.demo.MainActivity", 1)
		if !strings.Contains(list, want+"\n") {
			t.Errorf("--list lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^ActivityRecord\{[0-9a-f]+ u0 com\.perfgate\.demo/\.MainActivity t\d+\}#\d+$`).MatchString(list) {
		t.Errorf("--list lacks an ActivityRecord entry as on the tecno capture:\n%s", list)
	}
	// A layer without frames prints only the refresh period (tecno capture).
	tecno := capture(t, "sf_latency/tecno_camon20_5g_refresh_period_only_utf16le.txt")
	if got := wdumpsys(w, "SurfaceFlinger", "--latency", "StatusBar#87"); strings.TrimSpace(got) != strings.TrimSpace(tecno) {
		t.Errorf("--latency on a frameless layer = %q, capture %q", got, tecno)
	}
	// The non-BLAST SurfaceView layer prints zero rows (solox249 capture).
	_, rows, total := latencyRows(t, wdumpsys(w, "SurfaceFlinger", "--latency", "SurfaceView[com.perfgate.demo/com.perfgate.demo.MainActivity]#0"))
	if len(rows) != 0 || total != 127 {
		t.Errorf("non-BLAST layer: %d frames in %d rows", len(rows), total)
	}
	// API 28 layer names have no BLAST.
	w28 := scrolled(t, 28, "smooth-scroll")
	if l := wdumpsys(w28, "SurfaceFlinger", "--list"); strings.Contains(l, "BLAST") || !strings.Contains(l, "com.perfgate.demo/com.perfgate.demo.MainActivity#0\n") {
		t.Errorf("API 28 --list:\n%s", l)
	}
	// service call SurfaceFlinger 1013: one int32 in a parcel.
	var o, e bytes.Buffer
	w.ServiceCall([]string{"SurfaceFlinger", "1013"}, &o, &e)
	if !regexp.MustCompile(`^Result: Parcel\([0-9a-f]{8}    '.{4}'\)\n$`).MatchString(o.String()) {
		t.Errorf("service call: %q", o.String())
	}
}

func TestAmStartShapeMatchesCaptures(t *testing.T) {
	keys := func(s string) []string {
		var k []string
		for _, ln := range strings.Split(strings.TrimSpace(s), "\n") {
			if strings.HasPrefix(ln, "//") {
				continue // the author's annotations
			}
			name, _, _ := strings.Cut(ln, ":")
			k = append(k, strings.TrimSpace(name))
		}
		return k
	}
	for _, c := range []struct {
		api     int
		capture string
		args    []string
	}{
		{28, "startup/potato62_am_start_W_S_annotated.txt", []string{"start", "-W", "-S", "-n", PresetPackage + "/.MainActivity"}},
		{30, "startup/encapp_readme_launchstate_cold_portal.txt", []string{"start", "-W", "-n", PresetPackage + "/.MainActivity"}},
	} {
		w, _ := newTestWorld(t, Config{API: c.api})
		var o, e bytes.Buffer
		w.Am(context.Background(), c.args, &o, &e)
		if got, want := keys(o.String()), keys(capture(t, c.capture)); !slices.Equal(got, want) {
			t.Errorf("api %d am start keys\n got %q\nwant %q", c.api, got, want)
		}
	}
}

func TestDumpsysMiscShapes(t *testing.T) {
	w := scrolled(t, 34, "smooth-scroll")
	keys := func(s string) []string {
		var k []string
		for _, ln := range strings.Split(strings.TrimSpace(s), "\n") {
			name, _, _ := strings.Cut(ln, ":")
			k = append(k, name)
		}
		return k
	}
	if got, want := keys(wdumpsys(w, "battery")), keys(capture(t, "battery/xiaomi_pad6_api34_dumpsys_battery.txt")); !slices.Equal(got, want) {
		t.Errorf("battery keys\n got %q\nwant %q", got, want)
	}
	if _, err := dumpsys.ParseBatteryUevent(mustRead(t, w, "/sys/class/power_supply/battery/uevent")); err != nil {
		t.Errorf("dumpsys.ParseBatteryUevent: %v", err)
	}
	disp := wdumpsys(w, "display")
	mode := regexp.MustCompile(`\{id=(\d+), width=(\d+), height=(\d+), fps=([0-9.]+)`)
	for _, f := range []string{"display/flashlight_dumpsys_display_grep_120hz_pixel.txt", "display/flashlight_dumpsys_display_grep_60hz.txt"} {
		if !mode.MatchString(capture(t, f)) {
			t.Fatalf("%s has no supportedModes entry", f)
		}
	}
	if m := mode.FindStringSubmatch(disp); m == nil || m[4] != "60.0" || !strings.Contains(disp, "renderFrameRate 60.0,") {
		t.Errorf("display:\n%s", disp)
	}
	dr, err := dumpsys.ParseDisplayRefresh([]byte(disp))
	if err != nil || dr.ActiveHz != 60 {
		t.Errorf("dumpsys.ParseDisplayRefresh: %+v %v", dr, err)
	}
	w120, _ := newTestWorld(t, Config{API: 33, RefreshHz: 120})
	if dr, err := dumpsys.ParseDisplayRefresh([]byte(wdumpsys(w120, "display"))); err != nil || dr.ActiveHz < 119.9 || len(dr.Modes) != 2 {
		t.Errorf("120 Hz display: %+v %v", dr, err)
	}
	act := wdumpsys(w, "activity", "activities")
	realAct := capture(t, "startup/xiaomi_pad6_api34_dumpsys_activity_activities_section.txt")
	re := regexp.MustCompile(`(?m)^    topResumedActivity=ActivityRecord\{[0-9a-f]+ u0 (\S+) t\d+\}$`)
	if m := re.FindStringSubmatch(act); !re.MatchString(realAct) || m == nil || m[1] != "com.perfgate.demo/.MainActivity" {
		t.Errorf("activity activities:\n%s", act)
	}
	pkg := wdumpsys(w, "package", PresetPackage)
	if !strings.Contains(pkg, capture(t, "package_ps/blog2017_dumpsys_package_grep_userId.txt")[:len("    userId=")]+"10234\n") || !strings.Contains(pkg, "flags=[ DEBUGGABLE ") {
		t.Errorf("dumpsys package:\n%s", pkg)
	}
}

func TestPmPsShapes(t *testing.T) {
	w := scrolled(t, 34, "smooth-scroll")
	pid := w.Truth().Pids[0]
	var o, e bytes.Buffer
	w.Pm([]string{"list", "packages", "-f"}, &o, &e)
	pathLine := regexp.MustCompile(`^package:/\S+\.apk=[\w.]+$`)
	for _, ln := range strings.Split(strings.TrimSpace(capture(t, "package_ps/xiaomi_pad6_api34_pm_list_packages_f.txt")), "\n")[:20] {
		if !pathLine.MatchString(ln) {
			t.Fatalf("capture line %q does not fit the pattern", ln)
		}
	}
	for _, ln := range strings.Split(strings.TrimSpace(o.String()), "\n") {
		if !pathLine.MatchString(ln) {
			t.Errorf("pm list packages -f line %q", ln)
		}
	}
	o.Reset()
	w.Pm([]string{"list", "packages", "-U", "perfgate"}, &o, &e)
	if o.String() != "package:com.perfgate.demo uid:10234\n" {
		t.Errorf("pm list packages -U: %q", o.String())
	}
	o.Reset()
	w.Ps([]string{"-A"}, &o, &e)
	real := capture(t, "package_ps/solox50_toybox_ps_without_A_only_shell.txt")
	if got, want := strings.Fields(strings.SplitN(o.String(), "\n", 2)[0]), strings.Fields(strings.SplitN(real, "\n", 2)[0]); !slices.Equal(got, want) {
		t.Errorf("ps -A header %q, capture %q", got, want)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^u0_a234 +%d +\d+ +\d+ +\d+ \S+ +0 S com\.perfgate\.demo$`, pid)).MatchString(o.String()) {
		t.Errorf("ps -A has no app row:\n%s", o.String())
	}
	o.Reset()
	w.Ps([]string{"-ef"}, &o, &e)
	ef := capture(t, "package_ps/solox50_ps_ef_findstr_bili.txt")
	var row string
	for _, ln := range strings.Split(o.String(), "\n") {
		if strings.HasSuffix(ln, " com.perfgate.demo") {
			row = ln
		}
	}
	if len(strings.Fields(row)) != len(strings.Fields(ef)) {
		t.Errorf("ps -ef row %q has %d fields, capture %d", row, len(strings.Fields(row)), len(strings.Fields(ef)))
	}
}

func TestLogcatFormatsMatchCaptures(t *testing.T) {
	wl := mustPreset(t, "smooth-scroll")
	wl.Phases[0].Janks = []Jank{{At: []int{5}, Vsyncs: 40}}
	w, clk := newTestWorld(t, Config{API: 33, Workload: wl})
	wlaunch(t, w)
	clk.advance(2 * time.Second)
	line := func(format string) string {
		var o, e bytes.Buffer
		w.Logcat(context.Background(), []string{"-d", "-v", format, "Choreographer:I", "*:S"}, &o, &e)
		return strings.TrimSpace(o.String())
	}
	// Shapes of the threadtime (cyclestreets) and time (DDMS) captures.
	tt := regexp.MustCompile(`^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ I Choreographer: Skipped \d+ frames!  The application may be doing too much work on its main thread\.$`)
	real := strings.SplitN(capture(t, "logcat_choreographer/cyclestreets203_threadtime_2018.txt"), "\n", 2)[0]
	if !tt.MatchString(real) || !tt.MatchString(line("threadtime")) {
		t.Errorf("threadtime %q vs capture %q", line("threadtime"), real)
	}
	tm := regexp.MustCompile(`^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}:? I/Choreographer\( *\d+\): Skipped \d+ frames!`)
	if real := capture(t, "logcat_choreographer/mythtv193_ddms_time_format_2013.txt"); !tm.MatchString(real) || !tm.MatchString(line("time")) {
		t.Errorf("time %q vs capture %q", line("time"), real)
	}
	entries, err := logcat.Parse([]byte(line("threadtime") + "\n"))
	if err != nil || len(logcat.Skipped(entries)) != 1 || logcat.Skipped(entries)[0].Frames != 39 {
		t.Errorf("logcat.Skipped: %+v %v", entries, err)
	}
}
