package simdevice

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// Dumpsys runs `dumpsys <service> [args...]` for gfxinfo, SurfaceFlinger,
// meminfo, display, battery, netstats, package and activity, and returns
// its exit status.
func (w *World) Dumpsys(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stdout, "Currently running services:\n  SurfaceFlinger\n  activity\n  battery\n  display\n  dropbox\n  gfxinfo\n  meminfo\n  netstats\n  package")
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
	case "gpu":
		return w.dumpsysGPU(rest, stdout)
	case "display":
		return w.dumpsysDisplay(stdout)
	case "battery":
		return w.dumpsysBatteryCmd(rest, stdout)
	case "android.hardware.power.stats.IPowerStats/default":
		return w.dumpsysPowerStats(stdout, stderr)
	case "netstats":
		return w.dumpsysNetstats(rest, stdout)
	case "package":
		return w.dumpsysPackage(rest, stdout)
	case "activity":
		return w.dumpsysActivity(rest, stdout)
	case "dropbox":
		return w.dumpsysDropbox(rest, stdout)
	}
	fmt.Fprintf(stderr, "Can't find service: %s\n", svc)
	return 0
}

// dumpsysDisplay is `dumpsys display`.
func (w *World) dumpsysDisplay(stdout io.Writer) int {
	format.WriteDisplay(stdout, format.Display{API: w.cfg.API, Width: screenW, Height: screenH, RefreshHz: w.cfg.RefreshHz, Period: w.period})
	return 0
}

// dumpsysPackage is `dumpsys package <pkg>` of the installed app.
func (w *World) dumpsysPackage(args []string, stdout io.Writer) int {
	if len(args) == 0 || args[len(args)-1] != w.wl.Package {
		fmt.Fprintln(stdout, "Dexopt state:\n  Unable to find package")
		return 0
	}
	path := w.appPath()
	format.WritePackage(stdout, format.Package{
		API: w.cfg.API, Name: w.wl.Package, Activity: w.wl.shortComponent(), UID: w.wl.UID,
		CodePath: path[:strings.LastIndexByte(path, '/')], Debuggable: w.wl.Debuggable,
	})
	w.dexoptState(stdout)
	return 0
}

// dumpsysActivity is `dumpsys activity activities`: the app's activity is
// on top while it is shown, else the launcher's.
func (w *World) dumpsysActivity(args []string, stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	top := format.ActivityRecord("9a3c5e1", "com.android.launcher3/.uioverrides.QuickstepLauncher", 1)
	if w.app != nil && w.fg == fgResumed {
		top = format.ActivityRecord("5706436", w.wl.shortComponent(), 191)
	}
	format.WriteActivities(stdout, w.cfg.API, top, w.wl.UID, w.wl.Package)
	return 0
}

// dumpsysPid is the pid a dumpsys process gets now: the next one free.
func (w *World) dumpsysPid() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nextPid + 1
}
