package simdevice

import (
	"image"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/simdevice/uia2"
)

// Screen geometry of the simulated phone.
const (
	screenW, screenH = 1080, 2400
	statusBarH       = 63
)

// uiaScreen is the World seen by the uiautomator2 server: the app's views
// while it is shown, the launcher otherwise.
type uiaScreen struct{ w *World }

var _ uia2.Screen = uiaScreen{}

func (s uiaScreen) Size() (int, int) { return screenW, screenH }

// Elements lists the views on screen now, in drawing order.
func (s uiaScreen) Elements() []uia2.Element {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	return w.elementsLocked()
}

func (w *World) elementsLocked() []uia2.Element {
	els := []uia2.Element{{
		Class: "android.widget.FrameLayout", Package: "com.android.systemui", ResourceID: "com.android.systemui:id/status_bar",
		Bounds: image.Rect(0, 0, screenW, statusBarH), Enabled: true,
	}}
	if w.app != nil && w.fg == fgResumed && w.displayAt < 0 {
		els = append(els, uia2.Element{Class: "android.widget.FrameLayout", Package: w.wl.Package,
			ResourceID: "android:id/content", Bounds: image.Rect(0, statusBarH, screenW, screenH), Enabled: true})
		for _, e := range w.wl.Screen {
			els = append(els, uia2.Element{
				Class: e.Class, Text: e.Text, ResourceID: e.ResourceID, ContentDesc: e.ContentDesc, Package: w.wl.Package,
				Bounds:    image.Rect(e.Bounds[0], e.Bounds[1], e.Bounds[2], e.Bounds[3]),
				Clickable: e.Clickable, Scrollable: e.Scrollable, Enabled: true,
			})
		}
		return els
	}
	return append(els, uia2.Element{
		Class: "android.widget.TextView", Text: launcherLabel(w.wl), ContentDesc: launcherLabel(w.wl),
		Package: "com.android.launcher3", ResourceID: "com.android.launcher3:id/icon",
		Bounds: image.Rect(60, 1900, 300, 2160), Clickable: true, Enabled: true,
	})
}

// launcherLabel is the app's name under its launcher icon.
func launcherLabel(wl *Workload) string {
	for _, e := range wl.Screen {
		if e.ResourceID == wl.Package+":id/title" && e.Text != "" {
			return e.Text
		}
	}
	return wl.Package
}

// Tap touches (x, y): a tap on a view with text runs the workload's
// "tap:<text>" action; a tap on the launcher icon launches the app.
func (s uiaScreen) Tap(x, y int) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	pt := image.Pt(x, y)
	els := w.elementsLocked()
	for i := len(els) - 1; i >= 0; i-- {
		e := els[i]
		if !pt.In(e.Bounds) || !e.Clickable {
			continue
		}
		if e.Package == "com.android.launcher3" {
			w.launchLocked(w.now)
			return
		}
		w.actionLocked("tap:" + e.Text)
		return
	}
}

// Swipe runs the workload's "swipe" action when the app is shown.
func (s uiaScreen) Swipe(x1, y1, x2, y2 int, d time.Duration) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	w.actionLocked("swipe")
}

// Key presses a key: HOME (3) and BACK (4) leave the app, as on a phone;
// other codes run the workload's "key:<code>" action.
func (s uiaScreen) Key(code int) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	if w.app == nil || w.fg != fgResumed {
		return
	}
	switch code {
	case 3, 187:
		w.leaveLocked(fgStopped)
	case 4:
		w.leaveLocked(fgDestroyed)
	default:
		w.actionLocked("key:" + strconv.Itoa(code))
	}
}

// Type enters text and runs the workload's "text" action.
func (s uiaScreen) Type(text string) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	w.actionLocked("text")
}

// Info describes the device as /appium/device/info does.
func (s uiaScreen) Info() uia2.DeviceInfo {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	return uia2.DeviceInfo{
		AndroidID: "5f3c1a9e2b7d4c08", Manufacturer: "Google", Model: w.cfg.Model, Brand: "google",
		APILevel: w.cfg.API, PlatformVersion: releases[w.cfg.API], Density: 420, CarrierName: "",
		Locale: "en_US", TimeZone: "UTC", StatusBar: statusBarH,
		Battery: float64(w.battery.levelNow()) / 100, BatteryStatus: 3,
	}
}

// actionLocked starts the phase the workload binds to event.
func (w *World) actionLocked(event string) {
	if w.app == nil || w.fg != fgResumed || w.displayAt >= 0 {
		return
	}
	for _, a := range w.wl.Actions {
		if a.On == event {
			w.startPhaseLocked(w.wl.phase(a.Phase), w.now)
			return
		}
	}
}

// leaveLocked moves the app to the background: no more frames.
func (w *World) leaveLocked(st fgState) {
	w.fg = st
	w.phase = nil
	w.crashAt = -1
	w.displayAt = -1
	w.fullyAt = -1
}
