package dumpsys

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// PackageEntry is one line of `pm list packages` with -f and/or -U.
type PackageEntry struct {
	Name string
	Path string // APK path with -f, else ""
	UID  int    // with -U, else -1
}

// PackageListSource names `pm list packages` in errors.
const PackageListSource = "pm list packages"

// ParsePackageList parses `pm list packages [-f] [-U]`: "package:NAME",
// "package:PATH=NAME" (-f) and a trailing " uid:N" (-U; with several users
// "uid:N,M" keeps the first). APK paths under /data/app contain '=' (base64
// padding), so the name is what follows the LAST '='.
func ParsePackageList(b []byte) ([]PackageEntry, error) {
	var out []PackageEntry
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if t == "" {
			continue
		}
		bad := func(reason string) ([]PackageEntry, error) {
			return nil, &devtext.ParseError{Source: PackageListSource, Line: i + 1, Text: ln, Reason: reason}
		}
		body, ok := strings.CutPrefix(t, "package:")
		if !ok {
			return bad("want 'package:'")
		}
		e := PackageEntry{UID: -1}
		f := strings.Fields(body)
		if len(f) == 0 {
			return bad("no package name")
		}
		for _, extra := range f[1:] {
			k, v, _ := strings.Cut(extra, ":")
			if k == "uid" {
				v, _, _ = strings.Cut(v, ",")
				uid, err := strconv.Atoi(v)
				if err != nil {
					return bad("bad uid")
				}
				e.UID = uid
			}
		}
		e.Name = f[0]
		if j := strings.LastIndexByte(f[0], '='); j >= 0 {
			e.Path, e.Name = f[0][:j], f[0][j+1:]
		}
		if e.Name != PlatformPackage && ValidatePackage(e.Name) != nil {
			return bad("bad package name")
		}
		out = append(out, e)
	}
	return out, nil
}

// PlatformPackage is the one package whose name has a single segment: the
// platform itself (framework-res.apk), which `pm list packages` lists
// among the apps.
const PlatformPackage = "android"

// ValidatePackage checks that name is an Android application id, as the
// Java package grammar and Android's manifest rules allow: two or more
// dot-separated segments, each starting with a letter and holding only
// letters, digits and '_', at most 255 bytes. A process name suffix such as
// ":remote" is not part of a package name. It refuses everything else, so
// that a package name can never smuggle shell syntax ("com.x;reboot",
// "$(id)", quotes, spaces) into a device command: every layer that puts a
// user's package name into one checks it here.
func ValidatePackage(name string) error {
	bad := func(reason string) error {
		quoted := name
		if len(quoted) > 120 {
			quoted = strings.ToValidUTF8(quoted[:120], "") + "…"
		}
		return fmt.Errorf("invalid package name %s: %s", excerpt.Quote(quoted), reason)
	}
	if name == "" {
		return bad("empty")
	}
	if len(name) > 255 {
		return bad("longer than 255 bytes")
	}
	segs := strings.Split(name, ".")
	if len(segs) < 2 {
		return bad("want at least two dot-separated segments")
	}
	for _, seg := range segs {
		if seg == "" {
			return bad("empty segment")
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if i == 0 && !letter {
				return bad(fmt.Sprintf("segment %s must start with a letter", excerpt.Quote(seg)))
			}
			if !letter && !(c >= '0' && c <= '9') && c != '_' {
				return bad(fmt.Sprintf("character %s not allowed", strconv.QuoteRune(rune(c))))
			}
		}
	}
	return nil
}

// ParsePidof parses `pidof NAME`: pids separated by spaces. Empty output
// (pidof exits 1 when nothing matches) is no pids and no error.
func ParsePidof(b []byte) ([]int, error) {
	t := strings.TrimSpace(string(devtext.Normalize(b)))
	f := strings.Fields(t)
	out := make([]int, 0, len(f))
	for _, s := range f {
		pid, err := strconv.Atoi(s)
		if err != nil || pid <= 0 {
			return nil, &devtext.ParseError{Source: "pidof", Line: 1, Text: t, Reason: fmt.Sprintf("bad pid %s", excerpt.Quote(s))}
		}
		out = append(out, pid)
	}
	return out, nil
}

// PSProcess is one process row of `ps`.
type PSProcess struct {
	User  string
	PID   int
	PPID  int
	RSSKB int64  // -1 when the layout has no RSS (ps -ef)
	Name  string // NAME / CMD; ps -ef prints the whole command line
}

// PSSource names `ps` in errors.
const PSSource = "ps"

// ParsePS parses the process list of toybox `ps -A` (USER PID PPID VSZ RSS
// WCHAN ADDR S NAME), `ps -ef` (UID PID PPID C STIME TTY TIME CMD) and the
// pre-Android-8 toolbox `ps` (USER PID PPID VSIZE RSS WCHAN PC S NAME), with
// or without the header line (`| grep` drops it). Without a header the
// layout is told by the shape: a TIME column hh:mm:ss in field 7 means
// `ps -ef`. On Android 8+ plain `ps` lists only the shell's own processes;
// use `ps -A`.
func ParsePS(b []byte) ([]PSProcess, error) {
	var out []PSProcess
	ef := -1 // -1 undecided, 0 no, 1 yes
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		f := strings.Fields(ln)
		if len(f) == 0 {
			continue
		}
		bad := func(reason string) ([]PSProcess, error) {
			return nil, &devtext.ParseError{Source: PSSource, Line: i + 1, Text: ln, Reason: reason}
		}
		if f[0] == "USER" || f[0] == "UID" {
			if len(f) < 2 || f[1] != "PID" {
				return bad("unknown header")
			}
			ef = 0
			if f[len(f)-1] == "CMD" {
				ef = 1
			}
			continue
		}
		isEF := ef == 1
		if ef == -1 {
			isEF = len(f) >= 8 && psIsClock(f[6])
		}
		if len(f) < 3 {
			return bad("too few fields")
		}
		p := PSProcess{User: f[0], RSSKB: -1}
		var err error
		if p.PID, err = strconv.Atoi(f[1]); err != nil {
			return bad("bad PID")
		}
		if p.PPID, err = strconv.Atoi(f[2]); err != nil {
			return bad("bad PPID")
		}
		if isEF {
			if len(f) < 8 {
				return bad("ps -ef row: want 8 fields")
			}
			p.Name = strings.Join(f[7:], " ")
		} else {
			if len(f) < 9 {
				return bad(fmt.Sprintf("%d fields, want 9", len(f)))
			}
			if p.RSSKB, err = strconv.ParseInt(f[4], 10, 64); err != nil {
				return bad("bad RSS")
			}
			p.Name = strings.Join(f[8:], " ")
		}
		out = append(out, p)
	}
	return out, nil
}

func psIsClock(s string) bool {
	p := strings.Split(s, ":")
	if len(p) != 3 {
		return false
	}
	for _, x := range p {
		if _, err := strconv.Atoi(x); err != nil {
			return false
		}
	}
	return true
}

// PackageProcesses returns the processes of package pkg: the main process
// (named pkg) and its named sub-processes ("pkg:remote", "pkg:sandboxed_process0").
// ps -ef prints command lines, so only the first word of Name is compared.
func PackageProcesses(procs []PSProcess, pkg string) []PSProcess {
	var out []PSProcess
	for _, p := range procs {
		name, _, _ := strings.Cut(p.Name, " ")
		if name == pkg || strings.HasPrefix(name, pkg+":") {
			out = append(out, p)
		}
	}
	return out
}

// PackageInfo is what perfgate reads from `dumpsys package <pkg>`.
type PackageInfo struct {
	// Package is the name in the first "Package [name]" header; "" when
	// the text has none (a grep of it).
	Package     string
	UserID      int      // userId=, the app's uid; -1 when absent
	Flags       []string // flags=[ ... ] / pkgFlags=[ ... ]
	VersionName string
	VersionCode int64 // -1 when absent
}

// Debuggable reports whether flags hold DEBUGGABLE.
func (p PackageInfo) Debuggable() bool {
	for _, f := range p.Flags {
		if f == "DEBUGGABLE" {
			return true
		}
	}
	return false
}

// ErrPackageNotFound is matched (errors.Is) when `dumpsys package <pkg>`
// printed no userId: the package is not installed.
var ErrPackageNotFound = errors.New("package not found")

// PackageSource names `dumpsys package` in errors.
const PackageSource = "dumpsys package"

// ParsePackage parses `dumpsys package <pkg>` (or a grep of it). Only
// the first package block's values are kept (a shared-user listing repeats
// userId).
func ParsePackage(b []byte) (PackageInfo, error) {
	p := PackageInfo{UserID: -1, VersionCode: -1}
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		bad := func(reason string) (PackageInfo, error) {
			return PackageInfo{}, &devtext.ParseError{Source: PackageSource, Line: i + 1, Text: ln, Reason: reason}
		}
		switch {
		case strings.HasPrefix(t, "Package [") && p.Package == "":
			name, _, ok := strings.Cut(strings.TrimPrefix(t, "Package ["), "]")
			if !ok {
				return bad("no ']'")
			}
			p.Package = name
		case strings.HasPrefix(t, "userId=") && p.UserID < 0:
			v, _, _ := strings.Cut(strings.TrimPrefix(t, "userId="), " ")
			uid, err := strconv.Atoi(v)
			if err != nil {
				return bad("bad userId")
			}
			p.UserID = uid
		case (strings.HasPrefix(t, "flags=[") || strings.HasPrefix(t, "pkgFlags=[")) && p.Flags == nil:
			_, body, _ := strings.Cut(t, "[")
			body, _, ok := strings.Cut(body, "]")
			if !ok {
				return bad("no ']'")
			}
			p.Flags = strings.Fields(body)
		case strings.HasPrefix(t, "versionName=") && p.VersionName == "":
			p.VersionName = strings.TrimPrefix(t, "versionName=")
		case strings.HasPrefix(t, "versionCode=") && p.VersionCode < 0:
			v, _, _ := strings.Cut(strings.TrimPrefix(t, "versionCode="), " ")
			code, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return bad("bad versionCode")
			}
			p.VersionCode = code
		}
	}
	if p.UserID < 0 {
		return PackageInfo{}, fmt.Errorf("%s: %w (no userId= line)", PackageSource, ErrPackageNotFound)
	}
	return p, nil
}

// TopProcess is one process row of toybox `top -n 1`.
type TopProcess struct {
	PID    int
	User   string
	CPUPct float64 // [%metrics.CPU], per-core scale (up to 100 × cores)
	MemPct float64
	Args   string // truncated by top to the terminal width ("com.example.app+")
}

// TopSnapshot is one toybox `top -n 1` screen.
type TopSnapshot struct {
	CPUCapacityPct float64 // "800%cpu": 100 × online cores
	Procs          []TopProcess
}

// topEscapeRE matches the terminal control sequences top prints when it
// believes it has a terminal (cursor moves, colours).
var topEscapeRE = regexp.MustCompile(`\x1b(\[[0-9;?]*[A-Za-z]|[()][0-9A-Za-z])`)

// ParseTop parses toybox `top -n 1` (Android 10+), with or without the
// terminal escape sequences a pty capture holds.
func ParseTop(b []byte) (TopSnapshot, error) {
	const src = "top"
	text := topEscapeRE.ReplaceAllString(string(devtext.Normalize(b)), "")
	var ts TopSnapshot
	var cols map[string]int
	ncols := 0
	for i, ln := range strings.Split(text, "\n") {
		f := strings.Fields(ln)
		if len(f) == 0 {
			continue
		}
		bad := func(reason string) (TopSnapshot, error) {
			return TopSnapshot{}, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: reason}
		}
		if strings.HasSuffix(f[0], "%cpu") {
			v, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "%cpu"), 64)
			if err != nil {
				return bad("bad %cpu")
			}
			ts.CPUCapacityPct = v
			continue
		}
		if f[0] == "PID" {
			// top glues the state column to the sort marker: "S[%metrics.CPU]".
			cols = map[string]int{}
			ncols = 0
			for _, name := range f {
				if j := strings.IndexByte(name, '['); j > 0 {
					cols[name[:j]] = ncols
					ncols++
					name = name[j:]
				}
				cols[strings.Trim(name, "[]")] = ncols
				ncols++
			}
			if _, ok := cols["ARGS"]; !ok {
				return bad("no ARGS column")
			}
			continue
		}
		if cols == nil {
			continue // summary lines above the header
		}
		if len(f) < ncols {
			return bad(fmt.Sprintf("%d fields, want %d", len(f), ncols))
		}
		p := TopProcess{User: f[cols["USER"]], Args: strings.Join(f[cols["ARGS"]:], " ")}
		var err error
		if p.PID, err = strconv.Atoi(f[cols["PID"]]); err != nil {
			return bad("bad PID")
		}
		if j, ok := cols["%CPU"]; ok {
			if p.CPUPct, err = strconv.ParseFloat(f[j], 64); err != nil {
				return bad("bad %CPU")
			}
		}
		if j, ok := cols["%MEM"]; ok {
			if p.MemPct, err = strconv.ParseFloat(f[j], 64); err != nil {
				return bad("bad %MEM")
			}
		}
		ts.Procs = append(ts.Procs, p)
	}
	if cols == nil {
		return TopSnapshot{}, &devtext.ParseError{Source: src, Reason: "no PID header line"}
	}
	return ts, nil
}

// ActivityRef names an activity record.
type ActivityRef struct {
	Package   string // "com.termux"
	Activity  string // as printed: ".app.TermuxActivity" or a full class name
	Component string // "com.termux/.app.TermuxActivity"
	User      int    // Android user, 0 for the owner
}

// ParseResumedActivity finds the foreground activity in `dumpsys activity
// activities`: the first "topResumedActivity=", "ResumedActivity:",
// "mResumedActivity:" or "Resumed:" line holding an ActivityRecord{...}. It
// returns ok false when none is resumed (screen off, keyguard).
func ParseResumedActivity(b []byte) (ActivityRef, bool, error) {
	const src = "dumpsys activity activities"
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if !(strings.HasPrefix(t, "topResumedActivity=") || strings.HasPrefix(t, "ResumedActivity:") ||
			strings.HasPrefix(t, "mResumedActivity:") || strings.HasPrefix(t, "Resumed:")) {
			continue
		}
		j := strings.Index(t, "ActivityRecord{")
		if j < 0 {
			continue // "mResumedActivity: null"
		}
		f := strings.Fields(strings.TrimSuffix(t[j+len("ActivityRecord{"):], "}"))
		// hash u0 pkg/.Activity tN
		if len(f) < 3 || !strings.HasPrefix(f[1], "u") {
			return ActivityRef{}, false, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "want ActivityRecord{hash uN pkg/activity ...}"}
		}
		user, err := strconv.Atoi(f[1][1:])
		if err != nil {
			return ActivityRef{}, false, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "bad user"}
		}
		pkg, act, ok := strings.Cut(f[2], "/")
		if !ok || pkg == "" || act == "" {
			return ActivityRef{}, false, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "want pkg/activity"}
		}
		return ActivityRef{Package: pkg, Activity: act, Component: f[2], User: user}, true, nil
	}
	return ActivityRef{}, false, nil
}
