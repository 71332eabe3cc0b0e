package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/result"
)

// StartKind is how much of the app exists before a launch, as
// Macrobenchmark's StartupMode names it.
type StartKind string

const (
	// Cold: no process; `am force-stop` first.
	Cold StartKind = "cold"
	// Warm: the process lives, the activity was destroyed (BACK).
	Warm StartKind = "warm"
	// Hot: the activity lives in the background (HOME) and comes back.
	Hot StartKind = "hot"
)

// StartupOptions shape MeasureStartup.
type StartupOptions struct {
	// Activity to start, ".MainActivity" or a full class name; default the
	// package's launcher activity.
	Activity string
	// FullyDrawn is how long to wait after Displayed for the app's
	// "Fully drawn" (reportFullyDrawn); 0 does not wait for it.
	FullyDrawn time.Duration
	// Compilation is how the app's code is compiled before the launches
	// of a LaunchWith step; its state is restored after them, however the
	// step ends (see Compilation). The zero value leaves it as it is.
	Compilation Compilation
}

// MeasureStartup prepares the app for a kind of start (cold: force-stop;
// warm: running, activity finished with BACK; hot: running, in the
// background with HOME), launches it with `am start -W`, and reads the
// time to initial display (TotalTime, checked against logcat's
// "Displayed") and, when asked, to full display (logcat's "Fully drawn").
func MeasureStartup(ctx context.Context, dev *adbx.Device, pkg string, kind StartKind, o StartupOptions) (result.StartupSample, error) {
	return measureStartup(ctx, dev, pkg, kind, o, false, nil)
}

// measureStartup is MeasureStartup; with content it then waits for the
// app's first frames (waitContent). With now (a session's host clock) it
// times the launch: from just before its own am start to the reading of
// its figures (StartupSample.HostStartNs, HostEndNs).
func measureStartup(ctx context.Context, dev *adbx.Device, pkg string, kind StartKind, o StartupOptions, content bool, now func() int64) (result.StartupSample, error) {
	var s result.StartupSample
	if err := dumpsys.ValidatePackage(pkg); err != nil {
		return s, fmt.Errorf("scenario startup: %w", err)
	}
	component, err := resolveActivity(ctx, dev, pkg, o.Activity)
	if err != nil {
		return s, err
	}
	l := launch{dev: dev, component: component, start: "am start -W -n " + adbx.Quote(component)}
	if err := l.prepare(ctx, pkg, kind); err != nil {
		return s, err
	}
	before, err := startupLog(ctx, dev, component)
	if err != nil {
		return s, err
	}
	drawn := framesRendered(ctx, dev, pkg)
	if now != nil {
		s.HostStartNs = now()
	}
	out, err := l.run(ctx, l.start)
	if err != nil {
		return s, err
	}
	am, err := dumpsys.ParseAmStart([]byte(out))
	if err != nil {
		return s, fmt.Errorf("scenario startup: %s: %w: %q", l.start, err, strings.TrimSpace(out))
	}
	if am.TotalTimeMS < 0 {
		return s, fmt.Errorf("scenario startup: %s gave no TotalTime (status %s): %q", l.start, am.Status, strings.TrimSpace(out))
	}
	s.TotalTimeMs, s.WaitTimeMs, s.LaunchState = am.TotalTimeMS, max(am.WaitTimeMS, 0), am.LaunchState
	err = l.waitDrawn(ctx, &s, len(before), o.FullyDrawn)
	if now != nil {
		s.HostEndNs = now()
	}
	if err != nil || !content {
		return s, err
	}
	return s, waitContent(ctx, dev, pkg, drawn)
}

// contentWait bounds how long a launch step waits for the app's first
// content frame: an app whose screen is still after its first frame draws
// none.
const contentWait = time.Second

// waitContent waits until the app has rendered two frames more than the
// drawn it had before the launch, or contentWait has passed: the first
// frame, drawn by Displayed, and the first of its content after it. hwui
// flags a new window's first frame (WindowLayoutChanged), so it is no frame
// of the app's pace; the launch step ends once the app shows one that is,
// as it would on screen.
func waitContent(ctx context.Context, dev *adbx.Device, pkg string, drawn int64) error {
	deadline := time.Now().Add(contentWait)
	for framesRendered(ctx, dev, pkg) < drawn+2 && time.Now().Before(deadline) {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// framesRendered is the app's "Total frames rendered" (dumpsys gfxinfo)
// over its processes: 0 when none runs, or when the phone does not say.
func framesRendered(ctx context.Context, dev *adbx.Device, pkg string) int64 {
	r, err := dev.Shell(ctx, "dumpsys gfxinfo "+adbx.Quote(pkg))
	if err != nil {
		return 0
	}
	info, err := gfxinfo.Parse(r.Stdout)
	if err != nil {
		return 0
	}
	var n int64
	for _, p := range info.Processes {
		n += max(p.Summary.TotalFrames, 0)
	}
	return n
}

// launch is one MeasureStartup: the device, the component it starts and
// the `am start -W` command that starts it.
type launch struct {
	dev       *adbx.Device
	component string
	start     string
}

// run runs cmd on the device and returns its stdout; a failure to run or
// a non-zero exit is an error that names cmd.
func (l *launch) run(ctx context.Context, cmd string) (string, error) {
	r, err := l.dev.Shell(ctx, cmd)
	if err != nil {
		return "", fmt.Errorf("scenario startup: %s: %w", cmd, err)
	}
	if r.ExitCode != 0 {
		return "", fmt.Errorf("scenario startup: %s: exit %d: %s", cmd, r.ExitCode, strings.TrimSpace(string(r.Stdout)+string(r.Stderr)))
	}
	return string(r.Stdout), nil
}

// prepare puts the app in the state a kind of start begins from: stopped
// for cold, started then sent away with BACK (warm) or HOME (hot).
func (l *launch) prepare(ctx context.Context, pkg string, kind StartKind) error {
	switch kind {
	case Cold:
		_, err := l.run(ctx, "am force-stop "+pkg)
		return err
	case Warm, Hot:
		// The app must be up and shown before it can be sent away.
		out, err := l.run(ctx, l.start)
		if err != nil {
			return err
		}
		if _, err := dumpsys.ParseAmStart([]byte(out)); err != nil {
			return fmt.Errorf("scenario startup: %s: %w", l.start, err)
		}
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		key := "KEYCODE_BACK"
		if kind == Hot {
			key = "KEYCODE_HOME"
		}
		if _, err := l.run(ctx, "input keyevent "+key); err != nil {
			return err
		}
		return sleep(ctx, 300*time.Millisecond)
	default:
		return fmt.Errorf("scenario startup: kind %q, want cold, warm or hot", kind)
	}
}

// waitDrawn reads the Displayed and Fully drawn lines logged past the
// first seen of them into s, polling until both it waits for are there
// or two seconds (plus fullyDrawn) have passed.
func (l *launch) waitDrawn(ctx context.Context, s *result.StartupSample, seen int, fullyDrawn time.Duration) error {
	// Displayed is logged when the first frame is, which am start -W waits
	// for; Fully drawn comes when the app says so.
	deadline := time.Now().Add(2*time.Second + fullyDrawn)
	for {
		after, err := startupLog(ctx, l.dev, l.component)
		if err != nil {
			return err
		}
		for _, e := range after[min(seen, len(after)):] {
			switch {
			case e.FullyDrawn && s.FullyDrawnMs == 0:
				s.FullyDrawnMs = e.Duration.Milliseconds()
			case !e.FullyDrawn && s.DisplayedMs == 0:
				s.DisplayedMs = e.Duration.Milliseconds()
			}
		}
		if s.DisplayedMs > 0 && (fullyDrawn <= 0 || s.FullyDrawnMs > 0) || time.Now().After(deadline) {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// startupLog returns the Displayed and Fully drawn lines logcat holds for
// component. New ones are those past the count read before a launch.
func startupLog(ctx context.Context, dev *adbx.Device, component string) ([]logcat.Displayed, error) {
	r, err := dev.Shell(ctx, "logcat -d -v threadtime -b main,system")
	if err != nil {
		return nil, fmt.Errorf("scenario startup: logcat: %w", err)
	}
	entries, err := logcat.Parse(r.Stdout)
	if err != nil {
		return nil, fmt.Errorf("scenario startup: logcat: %w", err)
	}
	pkg, _, _ := strings.Cut(component, "/")
	var out []logcat.Displayed
	for _, d := range logcat.Startups(entries) {
		if strings.HasPrefix(d.Component, pkg+"/") {
			out = append(out, d)
		}
	}
	return out, nil
}

// resolveActivity returns "pkg/activity", asking the package manager for
// the launcher activity when none is given.
func resolveActivity(ctx context.Context, dev *adbx.Device, pkg, activity string) (string, error) {
	if activity != "" {
		if strings.ContainsAny(activity, " \t\n;&|'\"$`\\") {
			return "", fmt.Errorf("scenario startup: activity %q is not a class name", activity)
		}
		if strings.Contains(activity, "/") {
			return activity, nil
		}
		return pkg + "/" + activity, nil
	}
	cmd := "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER " + pkg
	r, err := dev.Shell(ctx, cmd)
	if err != nil {
		return "", fmt.Errorf("scenario startup: %s: %w", cmd, err)
	}
	lines := strings.Fields(string(r.Stdout))
	if len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], pkg+"/") {
		return lines[len(lines)-1], nil
	}
	if uid, err := dev.AppUID(ctx, pkg); err != nil || uid < 0 {
		if err == nil {
			err = adbx.ErrAppNotInstalled
		}
		return "", fmt.Errorf("scenario startup: %s: %w", pkg, err)
	}
	return "", fmt.Errorf("scenario startup: %s found no launcher activity: %q", cmd, strings.TrimSpace(string(r.Stdout)+string(r.Stderr)))
}

// StartupStatsOf turns launches into a step's figures: each the median of
// the launches by the nearest-rank method (DESIGN.md percentiles), and
// full display only when every launch reported it.
func StartupStatsOf(kind StartKind, samples []result.StartupSample) result.StartupStats {
	st := result.StartupStats{Kind: string(kind), Source: dumpsys.AmStartSource + " TotalTime; logcat Fully drawn", Iterations: samples}
	st.Summarise()
	return st
}

// Launch launches the app the scenario measures once, the way kind says,
// and records the startup in the step. See LaunchWith for iterations.
func Launch(kind StartKind) Action { return LaunchWith(kind, 1, StartupOptions{}) }

// LaunchWith launches the app n times the way kind says and records every
// launch in the step; the step's startup figures are the medians.
func LaunchWith(kind StartKind, n int, o StartupOptions) Action {
	name := fmt.Sprintf("launch %s ×%d", kind, n)
	if o.Compilation != CompileAsIs {
		name += " compilation " + string(o.Compilation)
	}
	return action{name, func(ctx context.Context, d *Driver) error {
		sc := scenarioOf(ctx)
		if sc == nil {
			return errors.New("scenario " + name + ": runs only as a step of a Scenario (it records startup into the step)")
		}
		var samples []result.StartupSample
		var err error
		c := &compiler{dev: d.dev, pkg: sc.pkg}
		var now func() int64
		if sc.session != nil {
			now = sc.session.Now
		}
		// A cold launch stops the app first: that is no crash.
		sc.session.Restarting(func() {
			// Put back even when the step's context has ended.
			defer c.apply(ctx, o.Compilation)(context.WithoutCancel(ctx))
			filter := c.state(ctx).filter
			for i := range n {
				var s result.StartupSample
				if kind == Cold {
					c.coldDrop(ctx)
				}
				// The step ends once the last launch drew its first frames.
				if s, err = measureStartup(ctx, d.dev, sc.pkg, kind, o, i == n-1, now); err != nil {
					return
				}
				s.Compilation = filter
				samples = append(samples, s)
			}
		})
		if err != nil {
			return err
		}
		st := StartupStatsOf(kind, samples)
		st.Compilation, st.Notes = string(o.Compilation), c.notes
		sc.session.AddStartup(st)
		return nil
	}}
}
