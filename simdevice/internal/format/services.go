package format

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// javaFloat prints a float32 as Java's Float.toString does for the values a
// display reports ("60.0", "120.00001").
func javaFloat(hz float64) string {
	s := strconv.FormatFloat(float64(float32(hz)), 'f', -1, 32)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// Display is the built-in display as `dumpsys display` describes it.
type Display struct {
	API           int
	Width, Height int     // pixels
	RefreshHz     float64 // the active mode's rate
	Period        int64   // refresh period, ns
}

// WriteDisplay writes the DisplayDeviceInfo part of `dumpsys display` per
// era (flashlight captures): supportedModes with fps=, plus renderFrameRate
// on API 34 and mRefreshRate= lines. A display above 60 Hz also offers
// 60 Hz.
func WriteDisplay(w io.Writer, d Display) {
	rate := javaFloat(d.RefreshHz)
	var modes []string
	active := 1
	if d.RefreshHz != 60 {
		modes = append(modes, "60.0")
		active = 2
	}
	modes = append(modes, rate)
	var ms []string
	for i, m := range modes {
		if d.API >= 33 {
			ms = append(ms, fmt.Sprintf("{id=%d, width=%d, height=%d, fps=%s, vsync=%s, alternativeRefreshRates=[], supportedHdrTypes=[2, 3, 4]}", i+1, d.Width, d.Height, m, m))
		} else {
			ms = append(ms, fmt.Sprintf("{id=%d, width=%d, height=%d, fps=%s}", i+1, d.Width, d.Height, m))
		}
	}
	var b strings.Builder
	b.WriteString("DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n  mSafeMode=false\n  mPendingTraversal=false\n\nDisplay Adapters: size=1\n  LocalDisplayAdapter\n\nDisplay Devices: size=1\n")
	fmt.Fprintf(&b, "  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:4619827535830457088\", %d x %d, modeId %d, ", d.Width, d.Height, active)
	if d.API >= 34 {
		fmt.Fprintf(&b, "renderFrameRate %s, ", rate)
	}
	fmt.Fprintf(&b, "defaultModeId %d, supportedModes [%s], colorMode 0, supportedColorModes [0], density 420, 420.0 x 420.0 dpi, appVsyncOff 1000000, presDeadline %d, touch INTERNAL, rotation 0, type INTERNAL, state ON, FLAG_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}\n",
		active, strings.Join(ms, ", "), d.Period-1_000_000)
	fmt.Fprintf(&b, "    mAdapter=LocalDisplayAdapter\n    mUniqueId=local:4619827535830457088\n    mActiveModeId=%d\n    mDefaultModeId=%d\n", active, active)
	fmt.Fprintf(&b, "    mRefreshRate=%s\n", rate)
	fmt.Fprintf(&b, "\nLogical Displays: size=1\n  Display 0:\n    mDisplayId=0\n    mBaseDisplayInfo=DisplayInfo{\"Built-in Screen\", displayId 0, real %d x %d, largest app %d x %d, smallest app %d x %d, appVsyncOff 1000000, presDeadline %d, mode %d, defaultMode %d, modes [%s]}\n",
		d.Width, d.Height, d.Width, d.Height, d.Width, d.Height, d.Period-1_000_000, active, active, strings.Join(ms, ", "))
	io.WriteString(w, b.String())
}

// Package is an installed app as `dumpsys package <pkg>` describes it.
type Package struct {
	API        int
	Name       string // package name
	Activity   string // launcher activity, short form (pkg/.Main)
	UID        int
	CodePath   string // the folder of base.apk
	Debuggable bool
}

// WritePackage writes `dumpsys package <pkg>`: userId and the flags line
// with DEBUGGABLE when the app is debuggable.
func WritePackage(w io.Writer, p Package) {
	flags := "HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP"
	if p.Debuggable {
		flags = "DEBUGGABLE " + flags
	}
	fmt.Fprintf(w, `Activity Resolver Table:
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
`, p.Activity, p.Name, p.UID, p.Name, p.CodePath, p.CodePath, p.API, p.Name, flags)
}

// WriteActivities writes `dumpsys activity activities`: the resumed
// activity top (an ActivityRecord{…}) as mResumedActivity (API ≤ 28) or
// topResumedActivity / ResumedActivity (API ≥ 29, xiaomi_pad6 capture), in
// the task of the app uid/pkg.
func WriteActivities(w io.Writer, api int, top string, uid int, pkg string) {
	var b strings.Builder
	b.WriteString("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n")
	if api >= 29 {
		fmt.Fprintf(&b, "Display #0 (activities from top to bottom):\n  * Task{f12b3a8 #191 type=standard A=%d:%s U=0 visible=true mode=fullscreen translucent=false sz=1}\n", uid, pkg)
		fmt.Fprintf(&b, "    topResumedActivity=%s\n\n", top)
		fmt.Fprintf(&b, "  Resumed activities in task display areas (from top to bottom):\n    Resumed: %s\n\n", top)
		fmt.Fprintf(&b, "  ResumedActivity: %s\n", top)
	} else {
		fmt.Fprintf(&b, "Display #0 (activities from top to bottom):\n  Stack #191: type=standard mode=fullscreen\n\n")
		fmt.Fprintf(&b, "    mResumedActivity: %s\n\n", top)
		fmt.Fprintf(&b, "  mFocusedActivity: %s\n", top)
	}
	io.WriteString(w, b.String())
}

// ActivityRecord names an activity of a task as ActivityManager prints it.
func ActivityRecord(hash, component string, task int) string {
	return fmt.Sprintf("ActivityRecord{%s u0 %s t%d}", hash, component, task)
}
