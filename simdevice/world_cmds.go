package simdevice

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Am runs `am start [-W] [-S] [-n component | -a action -c category …]`,
// `am force-stop <pkg>`, `am kill <pkg>`, `am start-activity` and `am
// profile start|stop` (amProfile). With -W it really waits until the
// activity is Displayed.
func (w *World) Am(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: am [subcommand] [options]")
		return 1
	}
	switch args[0] {
	case "start", "start-activity":
		return w.amStart(ctx, args[1:], stdout, stderr)
	case "profile":
		return w.amProfile(args[1:], stdout, stderr)
	case "broadcast":
		return w.amBroadcast(args[1:], stdout)
	case "dumpheap":
		return w.amDumpheap(args[1:], stdout, stderr)
	case "force-stop", "kill":
		if len(args) < 2 {
			fmt.Fprintf(stderr, "Error: no package specified for %s\n", args[0])
			return 1
		}
		pkg := args[len(args)-1]
		w.mu.Lock()
		w.advanceLocked()
		if pkg == w.wl.Package {
			w.forceStopLocked()
		}
		w.mu.Unlock()
		return 0
	}
	fmt.Fprintf(stderr, "Error: Unknown command: %s\n", args[0])
	return 255
}

func (w *World) amStart(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, ok := parseAmStart(args, stderr)
	if !ok {
		return 255
	}
	comp := o.comp
	w.mu.Lock()
	w.advanceLocked()
	target := comp
	if i := strings.IndexByte(comp, '/'); i > 0 && strings.HasPrefix(comp[i+1:], ".") {
		target = comp[:i] + "/" + comp[:i] + comp[i+1:]
	}
	var intent string
	switch {
	case comp != "":
		intent = "cmp=" + comp
	case o.action != "" || o.category != "":
		intent = strings.TrimSpace(fmt.Sprintf("act=%s cat=[%s]", o.action, o.category))
	default:
		w.mu.Unlock()
		fmt.Fprintln(stderr, "Error: Intent does not match any activities: Intent {  }")
		return 1
	}
	if comp != "" && target != w.wl.component() {
		w.mu.Unlock()
		fmt.Fprintf(stdout, "Starting: Intent { %s }\n", intent)
		fmt.Fprintf(stderr, "Error type 3\nError: Activity class {%s} does not exist.\n", target)
		return 1
	}
	if o.stop {
		fmt.Fprintf(stdout, "Stopping: %s\n", w.wl.Package)
		w.forceStopLocked()
	}
	fmt.Fprintf(stdout, "Starting: Intent { %s }\n", intent)
	start := w.now
	kind, d, top := w.launchLocked(start)
	api := w.cfg.API
	w.mu.Unlock()
	if top {
		fmt.Fprintln(stdout, "Warning: Activity not started, intent has been delivered to currently running top-most instance.")
	}
	if !o.wait {
		return 0
	}
	if !top {
		if err := w.opt.sleep(ctx, d); err != nil {
			return 130
		}
	}
	w.mu.Lock()
	w.advanceLocked()
	w.mu.Unlock()
	w.printAmWait(stdout, kind, d, top, api)
	return 0
}

// amStartOpts are the options of am start.
type amStartOpts struct {
	wait, stop             bool
	comp, action, category string
}

// parseAmStart reads am start's command line; false after an error on
// stderr.
func parseAmStart(args []string, stderr io.Writer) (amStartOpts, bool) {
	var o amStartOpts
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a {
		case "-W":
			o.wait = true
		case "-S":
			o.stop = true
		case "-n":
			o.comp = val()
		case "-a":
			o.action = val()
		case "-c":
			o.category = val()
		case "--user", "-f", "-d", "-t", "--ei", "--es", "--ez":
			val()
			if a == "--ei" || a == "--es" || a == "--ez" {
				val()
			}
		case "--activity-clear-top", "--activity-single-top", "--activity-new-task", "-R", "-P", "--start-profiler":
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "Error: Unknown option: %s\n", a)
				return o, false
			}
			o.comp = a
		}
	}
	return o, true
}

// printAmWait prints what am start -W reports of a launch that took d.
func (w *World) printAmWait(stdout io.Writer, kind string, d time.Duration, top bool, api int) {
	// WaitTime adds the system's own few milliseconds to TotalTime.
	total := d.Milliseconds()
	fmt.Fprintln(stdout, "Status: ok")
	switch {
	case top && api >= 29:
		fmt.Fprintln(stdout, "LaunchState: UNKNOWN (-1)")
	case api >= 29:
		fmt.Fprintf(stdout, "LaunchState: %s\n", kind)
	}
	fmt.Fprintf(stdout, "Activity: %s\n", w.wl.shortComponent())
	if top {
		fmt.Fprintf(stdout, "WaitTime: %d\nComplete\n", 2)
		return
	}
	if api < 29 {
		fmt.Fprintf(stdout, "ThisTime: %d\n", total)
	}
	fmt.Fprintf(stdout, "TotalTime: %d\nWaitTime: %d\nComplete\n", total, total+12)
}

// Monkey runs `monkey -p <pkg> -c android.intent.category.LAUNCHER 1`, the
// usual way to launch an app by package.
func (w *World) Monkey(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var pkg string
	count := 0
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-p", "-c", "--throttle", "-s", "--pct-syskeys":
			if i+1 < len(args) && args[i] == "-p" {
				pkg = args[i+1]
			}
			i++
		case "-v", "--ignore-crashes", "--ignore-timeouts":
		default:
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 0 {
				fmt.Fprintf(stderr, "** Error: Invalid argument: %s\n", args[i])
				return 1
			}
			count = n
		}
	}
	for _, a := range args {
		fmt.Fprintf(stdout, "  bash arg: %s\n", a)
	}
	if pkg != w.wl.Package {
		fmt.Fprintln(stdout, "** No activities found to run, monkey aborted.")
		return 252
	}
	w.mu.Lock()
	w.advanceLocked()
	if count > 0 {
		w.launchLocked(w.now)
	}
	w.mu.Unlock()
	fmt.Fprintf(stdout, "args: [%s]\n", strings.Join(args, ", "))
	for _, a := range args {
		fmt.Fprintf(stdout, " arg: %q\n", a)
	}
	fmt.Fprintf(stdout, "data=%q\n", pkg)
	fmt.Fprintf(stdout, "Events injected: %d\n", count)
	fmt.Fprintln(stdout, "## Network stats: elapsed time=21ms (0ms mobile, 0ms wifi, 21ms not connected)")
	return 0
}

// Input runs `input tap X Y`, `input swipe X1 Y1 X2 Y2 [ms]`,
// `input keyevent CODE|KEYCODE_NAME` and `input text STR`.
func (w *World) Input(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintln(stderr, "Usage: input [<source>] <command> [<arg>...]")
		return 1
	}
	if len(args) > 0 && (args[0] == "touchscreen" || args[0] == "keyboard") {
		args = args[1:]
	}
	if len(args) == 0 {
		return usage()
	}
	nums := func(a []string) ([]int, bool) {
		out := make([]int, len(a))
		for i, s := range a {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				fmt.Fprintf(stderr, "Error: Invalid arguments for command: %s\n", args[0])
				return nil, false
			}
			out[i] = int(f)
		}
		return out, true
	}
	s := uiaScreen{w}
	switch args[0] {
	case "tap":
		if len(args) != 3 {
			return usage()
		}
		n, ok := nums(args[1:])
		if !ok {
			return 1
		}
		s.Tap(n[0], n[1])
	case "swipe", "draganddrop":
		if len(args) != 5 && len(args) != 6 {
			return usage()
		}
		n, ok := nums(args[1:])
		if !ok {
			return 1
		}
		d := 300 * time.Millisecond
		if len(n) == 5 {
			d = time.Duration(n[4]) * time.Millisecond
		}
		s.Swipe(n[0], n[1], n[2], n[3], d)
	case "keyevent":
		if len(args) < 2 {
			return usage()
		}
		for _, k := range args[1:] {
			code, ok := keyCode(k)
			if !ok {
				fmt.Fprintf(stderr, "Error: Unknown keycode: %s\n", k)
				return 1
			}
			s.Key(code)
		}
	case "text":
		if len(args) < 2 {
			return usage()
		}
		s.Type(strings.Join(args[1:], " "))
	default:
		fmt.Fprintf(stderr, "Error: Unknown command: %s\n", args[0])
		return usage()
	}
	return 0
}

var keyNames = map[string]int{"HOME": 3, "BACK": 4, "ENTER": 66, "MENU": 82, "POWER": 26, "VOLUME_UP": 24,
	"VOLUME_DOWN": 25, "DPAD_UP": 19, "DPAD_DOWN": 20, "APP_SWITCH": 187, "WAKEUP": 224, "DEL": 67, "TAB": 61}

func keyCode(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 400 {
		return n, true
	}
	n, ok := keyNames[strings.TrimPrefix(s, "KEYCODE_")]
	return n, ok
}

// systemPackages are the packages a stock phone lists besides the app,
// with their uid and APK path.
var systemPackages = []struct {
	name string
	uid  int
	path string
}{
	{"android", 1000, "/system/framework/framework-res.apk"},
	{"com.android.systemui", 10156, "/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk"},
	{"com.android.settings", 1000, "/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk"},
	{"com.android.shell", 2000, "/system/priv-app/Shell/Shell.apk"},
	{"com.android.phone", 1001, "/system/priv-app/TeleService/TeleService.apk"},
	{"com.android.providers.settings", 1000, "/system/priv-app/SettingsProvider/SettingsProvider.apk"},
	{"com.android.launcher3", 10139, "/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk"},
	{"com.google.android.gms", 10112, "/product/priv-app/PrebuiltGmsCore/PrebuiltGmsCore.apk"},
	{"com.android.chrome", 10160, "/product/app/Chrome/Chrome.apk"},
	{"com.android.vending", 10092, "/product/priv-app/Phonesky/Phonesky.apk"},
	{"io.appium.uiautomator2.server", 10301, "/data/app/~~tPq1cCwZB8TtgXf5QbUkfw==/io.appium.uiautomator2.server-mPZyH0p6ZtqyD5A1xeEl6g==/base.apk"},
	{"io.appium.uiautomator2.server.test", 10302, "/data/app/~~3h0w6mYHhT1vjXGwlNVp3A==/io.appium.uiautomator2.server.test-8d9kMZ3Gx0u2KT7cJ6cRpA==/base.apk"},
}

func (w *World) appPath() string {
	if w.cfg.API < 30 {
		return "/data/app/" + w.wl.Package + "-Zp0uQ5tN3vE2bW8xJc1kTg==/base.apk"
	}
	return "/data/app/~~Hq7vT0k2aXc9pLmN4bRzWw==/" + w.wl.Package + "-5nE8sYwQ2mK1dF6gVh3JpA==/base.apk"
}

// Pm runs `pm list packages [-f] [-U] [-3] [-s] [FILTER]` and `pm path PKG`.
func (w *World) Pm(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: pm [list|path] ...")
		return 1
	}
	switch args[0] {
	case "resolve-activity":
		return w.pmResolveActivity(args, stdout, stderr)
	case "compile":
		return w.pmCompile(context.Background(), args[1:], stdout, stderr)
	case "path":
		return pmPath(w.pmPackages(), args, stdout, stderr)
	case "list":
		return pmList(w.pmPackages(), args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "Unknown command: %s\n", args[0])
	return 1
}

// pmPackage is a package as pm lists it.
type pmPackage struct {
	name string
	uid  int
	path string
	sys  bool
}

// pmPackages are the app's package and the system's.
func (w *World) pmPackages() []pmPackage {
	all := []pmPackage{{w.wl.Package, w.wl.UID, w.appPath(), false}}
	for _, p := range systemPackages {
		all = append(all, pmPackage{p.name, p.uid, p.path, !strings.HasPrefix(p.path, "/data/")})
	}
	return all
}

// pmResolveActivity runs `cmd package resolve-activity [--brief] [-c
// CATEGORY] PACKAGE`: the app's launcher activity, in the two-line --brief
// form.
func (w *World) pmResolveActivity(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "Error: no package specified")
		return 1
	}
	if args[len(args)-1] != w.wl.Package {
		fmt.Fprintln(stdout, "No activity found")
		return 0
	}
	fmt.Fprintln(stdout, "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true")
	fmt.Fprintln(stdout, w.wl.shortComponent())
	return 0
}

func pmPath(all []pmPackage, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "Error: no package specified")
		return 1
	}
	for _, p := range all {
		if p.name == args[len(args)-1] {
			fmt.Fprintf(stdout, "package:%s\n", p.path)
			return 0
		}
	}
	return 1
}

func pmList(all []pmPackage, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 || (args[1] != "packages" && args[1] != "package") {
		fmt.Fprintln(stderr, "Error: unknown list type")
		return 1
	}
	var showPath, showUID, third, system bool
	filter := ""
	for _, a := range args[2:] {
		switch a {
		case "-f":
			showPath = true
		case "-U":
			showUID = true
		case "-3":
			third = true
		case "-s":
			system = true
		case "-e", "-d", "-i", "-u", "--user", "0":
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "Error: Unknown option: %s\n", a)
				return 1
			}
			filter = a
		}
	}
	for _, p := range all {
		if (third && p.sys) || (system && !p.sys) || !strings.Contains(p.name, filter) {
			continue
		}
		line := "package:"
		if showPath {
			line += p.path + "="
		}
		line += p.name
		if showUID {
			line += " uid:" + strconv.Itoa(p.uid)
		}
		fmt.Fprintln(stdout, line)
	}
	return 0
}

// bgProc is a process the device runs in the background for the shell
// user (a perfetto recording), with its command line (ps -o ARGS).
type bgProc struct {
	sysProc
	args string
}

// sysProc is a process that always runs on the phone.
type sysProc struct {
	user      string
	pid, ppid int
	vsz, rss  int64
	wchan     string
	name      string
}

var systemProcs = []sysProc{
	{"root", 1, 0, 10931072, 3960, "do_epoll_wait", "init"},
	{"root", 2, 0, 0, 0, "kthreadd", "[kthreadd]"},
	{"logd", 371, 1, 10876832, 6460, "sigsuspend", "logd"},
	{"system", 612, 1, 10937904, 31232, "do_epoll_wait", "surfaceflinger"},
	{"root", 690, 1, 14789920, 120240, "do_sys_poll", "zygote64"},
	{"system", 1000, 690, 19208304, 389172, "do_epoll_wait", "system_server"},
	{"u0_a156", 1890, 690, 15994760, 231500, "do_epoll_wait", "com.android.systemui"},
	{"shell", 3120, 1, 10863952, 3632, "do_sys_poll", "adbd"},
}

// Pidof runs `pidof NAME...`: the pids of processes with that name.
func (w *World) Pidof(args []string, stdout, stderr io.Writer) int {
	w.mu.Lock()
	w.advanceLocked()
	var pids []string
	for _, n := range args {
		if strings.HasPrefix(n, "-") {
			continue
		}
		if w.app != nil && n == w.wl.Package {
			pids = append(pids, strconv.Itoa(w.app.pid))
		}
		for _, p := range systemProcs {
			if p.name == n {
				pids = append(pids, strconv.Itoa(p.pid))
			}
		}
	}
	w.mu.Unlock()
	if len(pids) == 0 {
		return 1
	}
	fmt.Fprintln(stdout, strings.Join(pids, " "))
	return 0
}

// Ps runs toybox ps: `ps -A`, `ps -e`, `ps -ef`, `ps -p PID`, `ps -T -p PID`
// and `ps NAME` filters, with the real column layouts.
func (w *World) Ps(args []string, stdout, stderr io.Writer) int {
	snap := w.psSnapshot()
	o, ok := parsePsArgs(args, stderr)
	if !ok {
		return 1
	}
	procs := snap.procs
	sort.Slice(procs, func(i, j int) bool { return procs[i].pid < procs[j].pid })
	if len(o.fields) > 0 {
		psPrintFields(stdout, o.fields, procs, o.keep, snap.cmdlines)
		return 0
	}
	o.printTable(stdout, &snap)
	return 0
}

// psSnapshot is what ps shows: the processes, and the app's pid and
// threads, at one time.
type psSnapshot struct {
	procs  []sysProc
	appPid int
	start  time.Time
	now    int64
	// threads are the app's.
	threads []*thread
	// cmdlines holds the command lines of the processes whose ARGS is
	// more than their name.
	cmdlines map[int]string
}

func (w *World) psSnapshot() psSnapshot {
	w.mu.Lock()
	w.advanceLocked()
	procs := append([]sysProc(nil), systemProcs...)
	if a := w.app; a != nil {
		m := w.memLocked()
		procs = append(procs, sysProc{appUser(w.wl.UID), a.pid, 690, 15_452_832 + m.pss*4, m.rss, "do_epoll_wait", w.wl.Package})
	}
	s := psSnapshot{start: w.bootWall, now: w.now, cmdlines: map[int]string{}}
	if w.app != nil {
		s.appPid = w.app.pid
		s.threads = w.app.threads
	}
	bg := w.bgProcs
	w.mu.Unlock()
	if bg != nil {
		for _, p := range bg() {
			procs = append(procs, p.sysProc)
			s.cmdlines[p.pid] = p.args
		}
	}
	s.procs = procs
	return s
}

// psOpts are ps's options.
type psOpts struct {
	all, full, showThreads bool
	pidsWanted             []int
	names, fields          []string
}

// parsePsArgs reads ps's command line; false after an error on stderr.
func parsePsArgs(args []string, stderr io.Writer) (psOpts, bool) {
	var o psOpts
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-o" || a == "-A" && i+2 < len(args) && args[i+1] == "-o") && i+1 < len(args):
			// toybox: -o takes a comma-separated field list (PID,NAME,...).
			if a == "-A" {
				o.all = true
				i++
			}
			i++
			for _, f := range strings.Split(args[i], ",") {
				f = strings.ToUpper(strings.TrimSpace(f))
				if _, ok := psFieldWidth[f]; !ok {
					fmt.Fprintf(stderr, "ps: bad -o %s\n", f)
					return o, false
				}
				o.fields = append(o.fields, f)
			}
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			o.fields = append(o.fields, strings.Split(strings.ToUpper(a[2:]), ",")...)
		case a == "-p" && i+1 < len(args):
			i++
			for _, s := range strings.Split(args[i], ",") {
				n, err := strconv.Atoi(s)
				if err != nil {
					fmt.Fprintf(stderr, "ps: bad -p %q\n", s)
					return o, false
				}
				o.pidsWanted = append(o.pidsWanted, n)
			}
		case strings.HasPrefix(a, "-"):
			if !o.flags(a[1:], stderr) {
				return o, false
			}
		default:
			o.names = append(o.names, a)
		}
	}
	return o, true
}

// flags takes a group of one-letter options.
func (o *psOpts) flags(group string, stderr io.Writer) bool {
	for _, c := range group {
		switch c {
		case 'A', 'e':
			o.all = true
		case 'f':
			o.full = true
		case 'T':
			o.showThreads = true
		case 'o', 'w', 'Z':
		default:
			fmt.Fprintf(stderr, "ps: Unknown option '%c'\n", c)
			return false
		}
	}
	return true
}

// keep tells whether ps lists p.
func (o *psOpts) keep(p sysProc) bool {
	if len(o.pidsWanted) > 0 {
		return slices.Contains(o.pidsWanted, p.pid)
	}
	if len(o.names) > 0 {
		return slices.Contains(o.names, p.name)
	}
	// toybox ps without -A shows only the caller's session.
	return o.all || p.user == "shell"
}

// printTable prints the processes ps lists in its default, -f or -T layout.
func (o *psOpts) printTable(stdout io.Writer, s *psSnapshot) {
	if o.full {
		fmt.Fprintln(stdout, "UID            PID  PPID C STIME TTY          TIME CMD")
	} else if o.showThreads {
		fmt.Fprintln(stdout, "USER           PID   TID  PPID     VSZ    RSS WCHAN            ADDR S CMD            ")
	} else {
		fmt.Fprintln(stdout, "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       ")
	}
	for _, p := range s.procs {
		if !o.keep(p) {
			continue
		}
		switch {
		case o.full:
			stime := s.start.Add(time.Duration(s.now - int64(time.Minute))).UTC().Format("15:04:05")
			cmd := p.name
			if a, ok := s.cmdlines[p.pid]; ok {
				cmd = a
			}
			fmt.Fprintf(stdout, "%-10s %8d %5d %d %s ?     %s %s\n", p.user, p.pid, p.ppid, 0, stime, "00:00:01", cmd)
		case o.showThreads && p.pid == s.appPid:
			for _, t := range s.threads {
				fmt.Fprintf(stdout, "%-10s %8d %5d %5d %7d %6d %-16s %4d %s %s\n", p.user, p.pid, t.tid, p.ppid, p.vsz, p.rss, p.wchan, 0, "S", t.name)
			}
		default:
			fmt.Fprintf(stdout, "%-10s %8d %5d %7d %6d %-16s %4d %s %s\n", p.user, p.pid, p.ppid, p.vsz, p.rss, p.wchan, 0, "S", p.name)
		}
	}
}

// psFieldWidth lists the -o fields the simulated toybox ps knows, with
// their column widths (negative: left-aligned, as toybox prints text).
var psFieldWidth = map[string]int{
	"PID": 5, "PPID": 5, "USER": -8, "NAME": -27, "CMD": -15, "ARGS": -27,
	"COMM": -15, "RSS": 6, "VSZ": 7, "WCHAN": -16, "S": 1,
}

func psPrintFields(w io.Writer, fields []string, procs []sysProc, keep func(sysProc) bool, args map[int]string) {
	row := func(val func(f string) string) {
		var b strings.Builder
		for i, f := range fields {
			if i > 0 {
				b.WriteByte(' ')
			}
			wd := psFieldWidth[f]
			if i == len(fields)-1 && wd < 0 {
				b.WriteString(val(f))
				continue
			}
			fmt.Fprintf(&b, "%*s", wd, val(f))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	row(func(f string) string { return f })
	for _, p := range procs {
		if !keep(p) {
			continue
		}
		row(func(f string) string {
			switch f {
			case "PID":
				return strconv.Itoa(p.pid)
			case "PPID":
				return strconv.Itoa(p.ppid)
			case "USER":
				return p.user
			case "RSS":
				return strconv.FormatInt(p.rss, 10)
			case "VSZ":
				return strconv.FormatInt(p.vsz, 10)
			case "WCHAN":
				return p.wchan
			case "S":
				return "S"
			case "ARGS":
				if a, ok := args[p.pid]; ok {
					return a
				}
			}
			return p.name // NAME, CMD, ARGS, COMM
		})
	}
}

// appUser is the Linux user name of an app uid (u0_a234 for 10234).
func appUser(uid int) string { return fmt.Sprintf("u0_a%d", uid-10000) }

// ServiceCall runs `service call SurfaceFlinger 1013`, which returns the
// number of frames SurfaceFlinger has composited (the page-flip count).
func (w *World) ServiceCall(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "service: Too few arguments")
		return 1
	}
	if args[0] != "SurfaceFlinger" {
		fmt.Fprintf(stdout, "service: Service %s does not exist\n", args[0])
		return 0
	}
	if args[1] != "1013" {
		fmt.Fprintln(stdout, "Result: Parcel(Error: 0xffffffffffffffb6 \"Unknown error 74\")")
		return 0
	}
	w.mu.Lock()
	w.advanceLocked()
	// The system UI and wallpaper composite too: one flip per second idle.
	n := uint32(w.flips + w.now/int64(time.Second))
	w.mu.Unlock()
	fmt.Fprintf(stdout, "Result: Parcel(%08x    '%s')\n", n, parcelASCII(n))
	return 0
}

// parcelASCII renders the 4 bytes of a little-endian int32 as service
// call's dump does: printable ASCII, else '.'.
func parcelASCII(n uint32) string {
	b := make([]byte, 4)
	for i := range b {
		c := byte(n >> (8 * i))
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		b[i] = c
	}
	return string(b)
}

// Prop returns a system property (getprop NAME) and whether it is set.
func (w *World) Prop(name string) (string, bool) {
	v, ok := w.Props()[name]
	return v, ok
}

var releases = map[int]string{28: "9", 30: "11", 33: "13", 34: "14"}

// Props returns every system property, for a bare `getprop`.
func (w *World) Props() map[string]string {
	p := products[w.cfg.API]
	debuggable := "0"
	if w.cfg.Root {
		debuggable = "1"
	}
	props := map[string]string{
		"ro.build.version.sdk":     strconv.Itoa(w.cfg.API),
		"ro.build.version.release": releases[w.cfg.API],
		"ro.build.type":            map[bool]string{true: "userdebug", false: "user"}[w.cfg.Root],
		"ro.debuggable":            debuggable,
		"ro.product.model":         w.cfg.Model,
		"ro.product.name":          p.name,
		"ro.product.device":        p.device,
		"ro.product.brand":         "google",
		"ro.product.manufacturer":  "Google",
		"ro.product.cpu.abi":       "arm64-v8a",
		"ro.product.cpu.abilist":   "arm64-v8a,armeabi-v7a,armeabi",
		"ro.serialno":              w.cfg.Serial,
		"ro.hardware":              p.device,
		"ro.board.platform":        p.device,
		"ro.sf.lcd_density":        "420",
		"ro.build.characteristics": "nosdcard",
		"ro.build.fingerprint":     fmt.Sprintf("google/%s/%s:%s/SIM1.%d/1:user/release-keys", p.name, p.device, releases[w.cfg.API], w.cfg.API),
		"sys.boot_completed":       "1",
		"init.svc.adbd":            "running",
		"persist.sys.timezone":     "UTC",
		"persist.sys.locale":       "en-US",
		"ro.surface_flinger.max_frame_buffer_acquired_buffers": "3",
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, v := range w.setProps {
		if v == "" {
			delete(props, k) // an empty value is an unset property to getprop
			continue
		}
		props[k] = v
	}
	return props
}
