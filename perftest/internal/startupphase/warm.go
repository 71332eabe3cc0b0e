package startupphase

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// Clock relates the steps' device clock to the trace's, for Attach.
type Clock struct {
	// ToDevice moves a trace time onto the steps' device clock;
	// FromDevice a device time onto the trace's.
	ToDevice   func(int64) int64
	FromDevice func(int64) (int64, error)
	// UncertaintyNs is how far a device time the session mapped from its
	// host clock may be from the truth (Result.Clock.UncertaintyMs): a
	// launch's am start is known to within it.
	UncertaintyNs int64
}

// Place puts the launches of st that the session timed on its host clock
// (StartupSample.HostStartNs, HostEndNs) onto the steps' device clock,
// through toDevice.
func Place(st *result.StartupStats, toDevice func(hostNs int64) int64) {
	if st == nil {
		return
	}
	for i := range st.Iterations {
		if it := &st.Iterations[i]; it.HostStartNs > 0 && it.HostEndNs > it.HostStartNs {
			it.DeviceStartNs, it.DeviceEndNs = toDevice(it.HostStartNs), toDevice(it.HostEndNs)
		}
	}
}

// anchors are the ActivityThread slices that begin a launch on the app's
// main thread, by the kind `am start -W` reports (LaunchState). On
// Android 10 to 14 (frameworks/base core/java/android/app/
// servertransaction: LaunchActivityItem, ResumeActivityItem,
// TransactionExecutor) a cold start binds the application first
// (bindApplication); a warm start, its activity destroyed, runs
// LaunchActivityItem, traced "activityStart", then onStart untraced, then
// ResumeActivityItem, traced "activityResume"; a hot start, its activity
// stopped, runs onRestart and onStart untraced and then "activityResume".
// "activityRestart" (ActivityRelaunchItem) is a relaunch on a
// configuration change, no start.
var anchors = map[string]string{"COLD": BindApplication, "WARM": ActivityStart, "HOT": ActivityResume}

// attachWarm gives each warm or hot start of st its phases, read from the
// launch's own window: from just before its `am start -W` was sent to when
// its figures were read (StartupSample.DeviceStartNs, DeviceEndNs), each
// edge widened by the clock's uncertainty. The preparation of a warm or
// hot start launches the app too, before that window. A launch is not
// placed, and st.PhasesNotMeasured says why, when it was not timed, when
// its window lacks the slice that begins its kind, or when a slice it is
// read from lies within the clock's uncertainty of an edge, where it may
// be the preparation's or the next launch's.
func attachWarm(a *trace.Analysis, st *result.StartupStats, clk Clock) {
	var whys []string
	launches := map[string][]string{}
	for i := range st.Iterations {
		it := &st.Iterations[i]
		l, why := placeLaunch(a, *it, st.Kind, clk)
		if why == "" {
			it.Phases = l.Result(clk.ToDevice)
			continue
		}
		if launches[why] == nil {
			whys = append(whys, why)
		}
		launches[why] = append(launches[why], strconv.Itoa(i+1))
	}
	for k, why := range whys {
		n := launches[why]
		whys[k] = "launch " + n[0] + ": " + why
		if len(n) > 1 {
			whys[k] = "launches " + strings.Join(n, ", ") + ": " + why
		}
	}
	if len(whys) > 0 {
		st.PhasesNotMeasured = "startup phases: " + strings.Join(whys, "; ")
	}
}

// placeLaunch reads the launch it of a step of kind (cold, warm, hot) from
// its window, or says why it cannot.
func placeLaunch(a *trace.Analysis, it result.StartupSample, kind string, clk Clock) (Launch, string) {
	state := strings.ToUpper(kind)
	if it.LaunchState != "" {
		state = it.LaunchState
	}
	anchor, ok := anchors[state]
	switch {
	case !ok:
		return Launch{}, fmt.Sprintf("am start -W reported launch state %q, no cold, warm or hot start", it.LaunchState)
	case it.DeviceStartNs == 0 || it.DeviceEndNs <= it.DeviceStartNs:
		return Launch{}, "the launch's am start was not timed (a launch a scenario's launch step did not make)"
	case clk.FromDevice == nil || clk.UncertaintyNs < 0:
		return Launch{}, "the steps' device clock is not related to the trace's"
	}
	u := clk.UncertaintyNs
	var e [4]int64 // lo, sure, edge, hi
	for k, dev := range []int64{it.DeviceStartNs - u, it.DeviceStartNs + u, it.DeviceEndNs - u, it.DeviceEndNs + u} {
		v, err := clk.FromDevice(dev)
		if err != nil {
			return Launch{}, "trace: " + err.Error()
		}
		e[k] = v
	}
	lo, sure, edge, hi := e[0], e[1], e[2], e[3]
	unsure := fmt.Sprintf("within the clock's uncertainty (±%v)", time.Duration(u))
	if sure >= edge {
		return Launch{}, "the launch is no longer than twice the clock's uncertainty (±" + time.Duration(u).String() + ")"
	}
	var pids []int32
	var sl []trace.Slice
	at := -1
	for _, pid := range a.AppPIDs {
		_, all := a.MainThread(pid, lo, hi)
		if i := slices.IndexFunc(all, func(s trace.Slice) bool { return s.Depth == 0 && s.Name == anchor && s.Start >= lo && s.Start < hi }); i >= 0 {
			pids, sl, at = append(pids, pid), all, i
		}
	}
	switch {
	case len(pids) == 0:
		return Launch{}, "no " + anchor + " slice on the app's main thread between the launch's am start and the reading of its figures (a " + strings.ToLower(state) + " start; atrace category am)"
	case len(pids) > 1:
		return Launch{}, fmt.Sprintf("the app's processes %v each show a %s slice in the launch's window", pids, anchor)
	}
	for _, s := range sl {
		if s.Start >= lo && s.Start < sure && phaseSlice(s.Name) {
			return Launch{}, fmt.Sprintf("%s begins %s of the launch's am start: it may be the preparation's", s.Name, unsure)
		}
	}
	l := launchFrom(a, pids[0], sl, lo, hi, at, a.NotMeasured["thread_states"] == "")
	for _, p := range l.Phases {
		from := p.Start // where the slice or frame it is read from begins
		if p.Name == FullyDrawn {
			from = p.End
		}
		if from >= edge {
			return Launch{}, fmt.Sprintf("its %s begins %s of the reading of its figures: it may be the next launch's", p.Name, unsure)
		}
	}
	return l, ""
}

// phaseSlice reports whether a slice of that name marks a phase.
func phaseSlice(name string) bool {
	switch name {
	case "PostFork", BindApplication, ActivityStart, ActivityResume:
		return true
	}
	return strings.HasPrefix(name, FirstDoFrame) || strings.HasPrefix(name, FullyDrawn)
}
