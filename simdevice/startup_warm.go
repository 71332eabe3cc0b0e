package simdevice

import (
	"fmt"
	"strings"
	"time"
)

// WarmStart is how a warm or hot start spends its time on the app's main
// thread: the app's own trace sections, one after another from the start
// of the ActivityThread slice that runs its code. On Android 10 to 14
// (frameworks/base core/java/android/app/servertransaction) a warm start
// runs LaunchActivityItem, traced "activityStart" (Activity.onCreate; the
// sections of a warm start are there), then, untraced, onStart
// (TransactionExecutor.performLifecycleSequence), then ResumeActivityItem,
// traced "activityResume"; a hot start, its activity stopped, runs
// onRestart and onStart untraced (performLifecycleSequence again) and then
// "activityResume" (onResume; the sections of a hot start are there).
// "activityRestart" is ActivityRelaunchItem, a relaunch on a configuration
// change, which neither start is.
type WarmStart struct {
	Sections []StartSection `json:"sections,omitempty"`
}

// validateWarm checks that the sections of warm and hot starts have
// names a trace can hold and fit: in 40% of warm_ms, 30% of hot_ms (a
// start too short for its phases, noise aside, is laid out without them).
func (s Startup) validateWarm() error {
	for _, k := range []struct {
		name    string
		ws      WarmStart
		ms, pct int
	}{{"warm", s.Warm, s.WarmMs, 40}, {"hot", s.Hot, s.HotMs, 30}} {
		sum := 0
		for i, sec := range k.ws.Sections {
			if sec.Name == "" || strings.ContainsAny(sec.Name, "|\n\x00") || sec.Ms <= 0 || sec.IOMs < 0 || sec.IOMs >= sec.Ms {
				return badField(fmt.Sprintf("startup.%s.sections[%d]", k.name, i), "%q %d ms, io %d ms: a name without '|' or a newline, ms > 0, io_ms from 0 to less than ms", sec.Name, sec.Ms, sec.IOMs)
			}
			sum += sec.Ms
		}
		if len(k.ws.Sections) > 0 && sum*100 >= k.ms*k.pct {
			return badField("startup."+k.name+".sections", "%d ms in all, not within %d%% of %s_ms (%d)", sum, k.pct, k.name, k.ms)
		}
	}
	return nil
}

// warmPhasesLocked lays a warm or hot start out on the main thread once
// its first frame f is made: from a tenth into the start, a warm start's
// activityStart to seven tenths of the way to the first frame's vsync,
// then (both kinds) activityResume half the way on, the app's sections
// from the start of the first of them, and the first frame's doFrame. k is
// the launch's noise factor. A start whose sections do not fit has no
// phases.
func (w *World) warmPhasesLocked(ts *TruthStartup, f *TruthFrame, k float64) {
	ws, s, v := w.wl.Startup.Warm, ts.StartNs+(ts.DisplayedNs-ts.StartNs)/10, f.IntendedVsync
	if s >= v {
		return
	}
	var ph []TruthPhase
	if ts.Kind == "HOT" {
		ws = w.wl.Startup.Hot
	} else {
		resume := s + (v-s)*7/10
		ph = append(ph, TruthPhase{Name: PhaseActivityStart, StartNs: s, EndNs: resume})
		s = resume
	}
	ph = append(ph, TruthPhase{Name: PhaseActivityResume, StartNs: s, EndNs: s + (v-s)/2})
	first := &ph[0]
	at := first.StartNs
	for _, sec := range ws.Sections {
		n := int64(scaleMs(time.Duration(sec.Ms)*time.Millisecond, k))
		io := int64(scaleMs(time.Duration(sec.IOMs)*time.Millisecond, k))
		first.Sections = append(first.Sections, TruthSlice{Name: sec.Name, DurNs: n})
		first.sectionIO = append(first.sectionIO, io)
		first.IONs += io
		at += n
	}
	if at >= first.EndNs {
		return
	}
	ts.Phases = append(ph, TruthPhase{Name: PhaseFirstDoFrame, StartNs: f.HandleInputStart, EndNs: f.SyncQueued})
}
