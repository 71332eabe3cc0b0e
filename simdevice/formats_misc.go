package simdevice

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Dumpsys runs `dumpsys <service> [args...]` for gfxinfo, SurfaceFlinger,
// meminfo, display, battery, netstats, package and activity, and returns
// its exit status.
func (w *World) Dumpsys(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stdout, "Currently running services:\n  SurfaceFlinger\n  activity\n  battery\n  display\n  gfxinfo\n  meminfo\n  netstats\n  package")
		return 0
	}
	svc, rest := args[0], args[1:]
	uid := 2000
	if w.cfg.Root {
		uid = 0
	}
	if msg, denied := w.cfg.Quirks.denial(svc, w.dumpsysPid(), uid); denied {
		fmt.Fprint(stdout, msg)
		return 0
	}
	switch svc {
	case "gfxinfo":
		return w.dumpsysGfxinfo(rest, stdout)
	case "SurfaceFlinger":
		return w.dumpsysSurfaceFlinger(rest, stdout)
	case "meminfo":
		return w.dumpsysMeminfo(rest, stdout)
	case "display":
		return w.dumpsysDisplay(stdout)
	case "battery":
		return w.dumpsysBattery(stdout)
	case "netstats":
		return w.dumpsysNetstats(rest, stdout)
	case "package":
		return w.dumpsysPackage(rest, stdout)
	case "activity":
		return w.dumpsysActivity(rest, stdout)
	}
	fmt.Fprintf(stderr, "Can't find service: %s\n", svc)
	return 0
}

// javaFloat prints a float32 as Java's Float.toString does for the values a
// display reports ("60.0", "120.00001").
func javaFloat(hz float64) string {
	s := strconv.FormatFloat(float64(float32(hz)), 'f', -1, 32)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// dumpsysDisplay is the DisplayDeviceInfo part of `dumpsys display` per era
// (flashlight captures): supportedModes with fps=, plus renderFrameRate on
// API 34 and mRefreshRate= lines. A phone above 60 Hz also offers 60 Hz.
func (w *World) dumpsysDisplay(stdout io.Writer) int {
	hz := w.cfg.RefreshHz
	rate := javaFloat(hz)
	var modes []string
	active := 1
	if hz != 60 {
		modes = append(modes, "60.0")
		active = 2
	}
	modes = append(modes, rate)
	var ms []string
	for i, m := range modes {
		if w.cfg.API >= 33 {
			ms = append(ms, fmt.Sprintf("{id=%d, width=%d, height=%d, fps=%s, vsync=%s, alternativeRefreshRates=[], supportedHdrTypes=[2, 3, 4]}", i+1, screenW, screenH, m, m))
		} else {
			ms = append(ms, fmt.Sprintf("{id=%d, width=%d, height=%d, fps=%s}", i+1, screenW, screenH, m))
		}
	}
	var b strings.Builder
	b.WriteString("DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n  mSafeMode=false\n  mPendingTraversal=false\n\nDisplay Adapters: size=1\n  LocalDisplayAdapter\n\nDisplay Devices: size=1\n")
	fmt.Fprintf(&b, "  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:4619827535830457088\", %d x %d, modeId %d, ", screenW, screenH, active)
	if w.cfg.API >= 34 {
		fmt.Fprintf(&b, "renderFrameRate %s, ", rate)
	}
	fmt.Fprintf(&b, "defaultModeId %d, supportedModes [%s], colorMode 0, supportedColorModes [0], density 420, 420.0 x 420.0 dpi, appVsyncOff 1000000, presDeadline %d, touch INTERNAL, rotation 0, type INTERNAL, state ON, FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}\n",
		active, strings.Join(ms, ", "), w.period-1_000_000)
	fmt.Fprintf(&b, "    mAdapter=LocalDisplayAdapter\n    mUniqueId=local:4619827535830457088\n    mActiveModeId=%d\n    mDefaultModeId=%d\n", active, active)
	fmt.Fprintf(&b, "    mRefreshRate=%s\n", rate)
	fmt.Fprintf(&b, "\nLogical Displays: size=1\n  Display 0:\n    mDisplayId=0\n    mBaseDisplayInfo=DisplayInfo{\"Built-in Screen\", displayId 0, real %d x %d, largest app %d x %d, smallest app %d x %d, appVsyncOff 1000000, presDeadline %d, mode %d, defaultMode %d, modes [%s]}\n",
		screenW, screenH, screenW, screenH, screenW, screenH, w.period-1_000_000, active, active, strings.Join(ms, ", "))
	io.WriteString(stdout, b.String())
	return 0
}

// dumpsysPackage is `dumpsys package <pkg>`: userId and the flags line with
// DEBUGGABLE when the app is debuggable.
func (w *World) dumpsysPackage(args []string, stdout io.Writer) int {
	if len(args) == 0 || args[len(args)-1] != w.wl.Package {
		fmt.Fprintln(stdout, "Dexopt state:\n  Unable to find package")
		return 0
	}
	flags := "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
	if w.wl.Debuggable {
		flags = "DEBUGGABLE " + flags
	}
	path := w.appPath()
	dir := path[:strings.LastIndexByte(path, '/')]
	fmt.Fprintf(stdout, `Activity Resolver Table:
  Non-Data Actions:
      android.intent.action.MAIN:
        5d2e7f1 %s filter 9b1c4a2
          Action: "android.intent.action.MAIN"
          Category: "android.intent.category.LAUNCHER"

Packages:
  Package [%s] (3c9a1e7):
    userId=%d
    pkg=Package{8e4b2d0 %s}
    codePath=%s
    resourcePath=%s
    primaryCpuAbi=arm64-v8a
    versionCode=1 minSdk=24 targetSdk=%d
    versionName=1.0
    dataDir=/data/user/0/%s
    flags=[ %s ]
    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION ALLOW_AUDIO_PLAYBACK_CAPTURE ]
    timeStamp=2026-11-22 05:12:40
    lastUpdateTime=2026-11-22 05:12:41
    installerPackageName=null
    User 0: ceDataInode=131233 installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false
`, w.wl.shortComponent(), w.wl.Package, w.wl.UID, w.wl.Package, dir, dir, w.cfg.API, w.wl.Package, flags)
	return 0
}

// dumpsysActivity is `dumpsys activity activities`: the resumed activity as
// mResumedActivity (API ≤ 28) or topResumedActivity / ResumedActivity
// (API ≥ 29, xiaomi_pad6 capture).
func (w *World) dumpsysActivity(args []string, stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	top := "ActivityRecord{9a3c5e1 u0 com.android.launcher3/.uioverrides.QuickstepLauncher t1}"
	if w.app != nil && w.fg == fgResumed {
		top = fmt.Sprintf("ActivityRecord{5706436 u0 %s t191}", w.wl.shortComponent())
	}
	var b strings.Builder
	b.WriteString("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n")
	if w.cfg.API >= 29 {
		fmt.Fprintf(&b, "Display #0 (activities from top to bottom):\n  * Task{f12b3a8 #191 type=standard A=%d:%s U=0 visible=true mode=fullscreen translucent=false sz=1}\n", w.wl.UID, w.wl.Package)
		fmt.Fprintf(&b, "    topResumedActivity=%s\n\n", top)
		fmt.Fprintf(&b, "  Resumed activities in task display areas (from top to bottom):\n    Resumed: %s\n\n", top)
		fmt.Fprintf(&b, "  ResumedActivity: %s\n", top)
	} else {
		fmt.Fprintf(&b, "Display #0 (activities from top to bottom):\n  Stack #191: type=standard mode=fullscreen\n\n")
		fmt.Fprintf(&b, "    mResumedActivity: %s\n\n", top)
		fmt.Fprintf(&b, "  mFocusedActivity: %s\n", top)
	}
	io.WriteString(stdout, b.String())
	return 0
}

// dumpsysPid is the pid a dumpsys process gets now: the next one free.
func (w *World) dumpsysPid() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nextPid + 1
}
