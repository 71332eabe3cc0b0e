package simdevice

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/frames"
)

// The framework's classes the main thread's messages and stacks name.
const (
	frameHandler  = "android.view.Choreographer$FrameHandler"
	frameReceiver = "android.view.Choreographer$FrameDisplayEventReceiver"
	activityH     = "android.app.ActivityThread$H"
	// ActivityThread.H's message codes for a launch.
	whatBindApplication    = 110
	whatExecuteTransaction = 159
)

// mainThreadCausePhases are the phases whose work runs on the main thread.
var mainThreadCausePhases = []string{string(frames.PhaseWait), string(frames.PhaseInput), string(frames.PhaseAnimation),
	string(frames.PhaseLayout), string(frames.PhaseDraw)}

// cause returns the workload's cause named name, nil when none.
func (w *Workload) cause(name string) *Cause {
	for i := range w.Causes {
		if w.Causes[i].Name == name {
			return &w.Causes[i]
		}
	}
	return nil
}

// validateCauses checks every cause names a phase, and a main-thread cause
// its message and stack.
func (w *Workload) validateCauses() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrWorkload, field, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for i, c := range w.Causes {
		f := fmt.Sprintf("causes[%d]", i)
		if c.Name == "" || seen[c.Name] {
			return bad(f+".name", "%q is empty or used twice", c.Name)
		}
		seen[c.Name] = true
		if !slices.Contains(frames.PhaseOrder[:], frames.Phase(c.Phase)) {
			return bad(f+".phase", "%q is not a frame phase (%v)", c.Phase, frames.PhaseOrder)
		}
		onMain := slices.Contains(mainThreadCausePhases, c.Phase)
		if onMain && len(c.Stack) == 0 {
			return bad(f+".stack", "work on the main thread needs its stack")
		}
		if !onMain && len(c.Stack) > 0 {
			return bad(f+".stack", "phase %q is RenderThread work: the main thread has no stack in it", c.Phase)
		}
		if c.Phase == string(frames.PhaseWait) && !javaClass(c.Handler) {
			return bad(f+".handler", "%q is not a class name: a message of its own needs its Handler", c.Handler)
		}
		if c.Callback != "" && !javaClass(c.Callback) {
			return bad(f+".callback", "%q is not a class name", c.Callback)
		}
		for j, m := range c.Stack {
			if !javaClass(m) {
				return bad(fmt.Sprintf("%s.stack[%d]", f, j), "%q is not a method name", m)
			}
		}
	}
	return nil
}

// javaClass accepts a dotted class or method name ("a.B$1", "a.B.<init>").
func javaClass(s string) bool {
	if s == "" || len(s) > 300 || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '$' || r == '_' || r == '<' || r == '>' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// TruthBlock is one message the app's main thread ran that the truth
// records: a cause's work, the frame message it ran in, and the app's
// launch messages. Times are the device's monotonic ns.
type TruthBlock struct {
	Pid     int   `json:"pid"`
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Handler, Callback (with its identity hash, "" for null) and What
	// are the message as Looper prints it.
	Handler  string `json:"handler"`
	Callback string `json:"callback,omitempty"`
	What     int    `json:"what"`
	// Cause is the workload cause whose work the message ran, "" for a
	// launch message, and WorkNs how long of the message the work took.
	Cause  string `json:"cause,omitempty"`
	WorkNs int64  `json:"work_ns,omitempty"`
	// FrameVsync is the IntendedVsync of the frame the message delayed
	// (a message before the frame) or drew (the frame's own), 0 for none.
	FrameVsync int64 `json:"frame_vsync_ns,omitempty"`
	// LoggedMs is the duration Looper logged for it ("Slow dispatch took
	// N ms"), 0 when it logged nothing: the property was not set when the
	// process started, or the message was under the threshold.
	LoggedMs int64 `json:"logged_ms,omitempty"`
}

// mainRun is a stretch of time the app's main thread ran on a CPU, with
// the stack it ran with (outermost first): what simpleperf samples.
type mainRun struct {
	pid        int
	start, end int64
	stack      []string
}

// keep bounds of the truth blocks and main-thread runs a World holds.
const (
	blocksKept = 50_000
	runsKept   = 400_000
)

// The main thread's stack below the Looper, outermost first, and the
// frame message's stacks by phase.
var (
	looperBase = []string{"com.android.internal.os.ZygoteInit.main", "com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run",
		"java.lang.reflect.Method.invoke", "android.app.ActivityThread.main", "android.os.Looper.loop", "android.os.Looper.loopOnce",
		"android.os.Handler.dispatchMessage"}
	doFrameBase = []string{"android.view.Choreographer$FrameDisplayEventReceiver.run", "android.view.Choreographer.doFrame",
		"android.view.Choreographer.doCallbacks", "android.view.Choreographer$CallbackRecord.run"}
	phaseStacks = map[frames.Phase][]string{
		frames.PhaseInput:     {"android.view.ViewRootImpl$ConsumeBatchedInputRunnable.run", "android.view.ViewRootImpl.doConsumeBatchedInput"},
		frames.PhaseAnimation: {"android.animation.AnimationHandler$1.doFrame", "android.animation.AnimationHandler.doAnimationFrame"},
		frames.PhaseLayout: {"android.view.ViewRootImpl$TraversalRunnable.run", "android.view.ViewRootImpl.doTraversal",
			"android.view.ViewRootImpl.performTraversals", "android.view.ViewRootImpl.performLayout"},
		frames.PhaseDraw: {"android.view.ViewRootImpl$TraversalRunnable.run", "android.view.ViewRootImpl.doTraversal",
			"android.view.ViewRootImpl.performTraversals", "android.view.ViewRootImpl.performDraw", "android.view.ThreadedRenderer.draw"},
	}
	launchStacks = map[int][]string{
		whatBindApplication:    {"android.app.ActivityThread$H.handleMessage", "android.app.ActivityThread.handleBindApplication", "android.app.Instrumentation.callApplicationOnCreate"},
		whatExecuteTransaction: {"android.app.ActivityThread$H.handleMessage", "android.app.servertransaction.TransactionExecutor.execute", "android.app.ActivityThread.handleLaunchActivity", "android.app.Activity.performCreate"},
	}
)

func stackOf(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// identityHash is a stable Object.hashCode-like hex for one object of the
// process: the same key prints the same "@hex".
func identityHash(pid int, key string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d/%s", pid, key)
	return strconv.FormatUint(uint64(h.Sum32()&0x0fffffff), 16)
}

// looperThreshold is the slow-message threshold the app's main Looper
// reads when a process of uid starts (Looper.getThresholdOverride), -1 when
// no property holds one. Android 14 added the "any" forms.
func (w *World) looperThreshold(uid int) int64 {
	names := []string{logcat.LooperSlowProperty(uid, "main")}
	if w.cfg.API >= 34 {
		names = []string{"log.looper.any.main.slow", logcat.LooperSlowProperty(uid, "any"), names[0]}
	}
	for _, n := range names {
		// SystemProperties.getInt: anything but an integer is the default.
		if v, err := strconv.ParseInt(w.setProps[n], 10, 32); err == nil && v >= 0 {
			return v
		}
	}
	return -1
}

// uptimeMs is SystemClock.uptimeMillis at t.
func uptimeMs(t int64) int64 { return t / int64(time.Millisecond) }

// dispatchLocked records one message the main thread of the running
// process ran over [start, end] and logs it the way Looper does when the
// process's threshold is set: "Slow delivery" when it started more than
// the threshold after it was due (when), then "Drained" once a message
// after a slow delivery starts in time, and "Slow dispatch" when it ran
// longer than the threshold. It returns the duration logged as slow
// dispatch, 0 for none.
func (w *World) dispatchLocked(start, end, when int64, handler, callback string, what int) int64 {
	a := w.app
	if a == nil || a.looperMs < 0 {
		return 0
	}
	tail := fmt.Sprintf(" main h=%s c=%s m=%d", handler, orNull(callback), what)
	log := func(msg string) { w.logBufLocked(end, "system", a.pid, a.pid, 'W', "Looper", msg) }
	if delay := uptimeMs(start) - uptimeMs(when); when > 0 {
		switch {
		case !a.slowDelivery && delay >= a.looperMs:
			log(fmt.Sprintf("Slow delivery took %dms", delay) + tail)
			a.slowDelivery = true
		case a.slowDelivery && delay <= 10:
			log("Drained")
			a.slowDelivery = false
		}
	}
	if took := uptimeMs(end) - uptimeMs(start); took >= a.looperMs {
		log(fmt.Sprintf("Slow dispatch took %dms", took) + tail)
		return max(took, 1)
	}
	return 0
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// recordBlockLocked keeps a truth block.
func (w *World) recordBlockLocked(b TruthBlock) {
	if len(w.blocks) >= 2*blocksKept {
		w.blocks = slices.Delete(w.blocks, 0, len(w.blocks)-blocksKept)
	}
	w.blocks = append(w.blocks, b)
}

// runLocked keeps a stretch the main thread ran on a CPU.
func (w *World) runLocked(start, end int64, stack []string) {
	if w.app == nil || end <= start {
		return
	}
	if len(w.runs) >= 2*runsKept {
		w.runs = slices.Delete(w.runs, 0, len(w.runs)-runsKept)
	}
	w.runs = append(w.runs, mainRun{pid: w.app.pid, start: start, end: end, stack: stack})
}

// frameStages lays out a frame that starts at its vsync v and lasts d: the
// offsets of HandleInputStart, AnimationStart, PerformTraversalsStart,
// DrawStart, SyncQueued, SyncStart, IssueDrawCommandsStart, SwapBuffers,
// SwapBuffersCompleted and FrameCompleted. A frame without a cause divides
// d in fixed shares; with one, a normal frame of d0 does, and the rest of d
// is the cause's work, inserted at the end of its phase.
func frameStages(d, d0 int64, cause *Cause) [10]int64 {
	fracs := [10]float64{0.01, 0.012, 0.05, 0.2, 0.4, 0.41, 0.43, 0.8, 0.82, 1}
	var st [10]int64
	base := d
	if cause != nil {
		base = min(d0, d)
	}
	for i, f := range fracs {
		st[i] = int64(float64(base) * f)
	}
	if cause == nil {
		return st
	}
	extra := d - base
	// The stage each phase ends at: wait at HandleInputStart (0), …, sync
	// at IssueDrawCommandsStart (6), commands at SwapBuffers (7), swap at
	// FrameCompleted (9).
	ends := map[string]int{"wait": 0, "input": 1, "animation": 2, "layout": 3, "draw": 4, "sync": 6, "commands": 7, "swap": 9}
	for i := ends[cause.Phase]; i < len(st); i++ {
		st[i] += extra
	}
	return st
}

// mainThreadLocked records, for frame f (drawn for vsync v) of the running
// process, the main thread's messages and runs: the cause's own message
// before the frame, the frame's Choreographer message and the stretches of
// it that run on the CPU, each logged as Looper does. It returns the blocks
// of cause work, for the frame's truth.
func (w *World) mainThreadLocked(f *TruthFrame, cause *Cause, work int64, anr bool) []TruthBlock {
	a := w.app
	var out []TruthBlock
	frameStart := f.HandleInputStart - 50_000 // doFrame starts just before it handles input
	when := f.IntendedVsync
	if cause != nil && cause.Phase == string(frames.PhaseWait) {
		// The cause's message ran from just before the vsync until the
		// frame could start.
		lead := min(w.period/8, int64(time.Millisecond))
		start, end := f.IntendedVsync-lead, frameStart-20_000
		cb := ""
		if cause.Callback != "" {
			w.postSeq++
			cb = cause.Callback + "@" + identityHash(a.pid, fmt.Sprintf("%s#%d", cause.Callback, w.postSeq))
		}
		logged := w.dispatchLocked(start, end, start, cause.Handler, cb, cause.What)
		w.runLocked(start, end, cause.Stack)
		out = append(out, TruthBlock{Pid: a.pid, StartNs: start, EndNs: end, Handler: cause.Handler, Callback: cb, What: cause.What,
			Cause: cause.Name, WorkNs: end - start, FrameVsync: f.IntendedVsync, LoggedMs: logged})
	}
	// The frame's own message, and where in it the main thread runs.
	end := f.IssueDrawCommandsStart
	receiver := frameReceiver + "@" + identityHash(a.pid, frameReceiver)
	logged := w.dispatchLocked(frameStart, end, when, frameHandler, receiver, 0)
	stages := []struct {
		phase      frames.Phase
		start, end int64
	}{
		{frames.PhaseInput, f.HandleInputStart, f.AnimationStart},
		{frames.PhaseAnimation, f.AnimationStart, f.PerformTraversalsStart},
		{frames.PhaseLayout, f.PerformTraversalsStart, f.DrawStart},
		{frames.PhaseDraw, f.DrawStart, f.SyncQueued},
	}
	inFrame := cause != nil && cause.Phase != string(frames.PhaseWait) && len(cause.Stack) > 0
	for _, s := range stages {
		stack := stackOf(looperBase, doFrameBase, phaseStacks[s.phase])
		if inFrame && string(s.phase) == cause.Phase {
			split := s.end - work
			w.runLocked(s.start, split, stack)
			w.runLocked(split, s.end, cause.Stack)
			continue
		}
		w.runLocked(s.start, s.end, stack)
	}
	if inFrame || logged > 0 {
		b := TruthBlock{Pid: a.pid, StartNs: frameStart, EndNs: end, Handler: frameHandler, Callback: receiver,
			FrameVsync: f.IntendedVsync, LoggedMs: logged}
		if inFrame {
			b.Cause, b.WorkNs = cause.Name, work
		}
		out = append(out, b)
	}
	for _, b := range out {
		w.recordBlockLocked(b)
	}
	if anr && cause != nil && len(out) > 0 {
		// The system gives up on the app five seconds into the work.
		w.anrLocked(out[0].StartNs+int64(5*time.Second), cause)
	}
	return out
}

// launchMessagesLocked records the messages a launch of kind runs on the
// new or resumed activity's main thread between t and Displayed (at
// t+wait): binding the application (cold starts) and the launch
// transaction.
func (w *World) launchMessagesLocked(kind string, t int64, wait time.Duration) {
	a := w.app
	if a == nil || wait <= 0 {
		return
	}
	end := t + int64(wait)
	type msg struct {
		what       int
		start, end int64
	}
	var msgs []msg
	if kind == "COLD" {
		mid := t + int64(wait)*45/100
		msgs = append(msgs, msg{whatBindApplication, t + int64(5*time.Millisecond), mid}, msg{whatExecuteTransaction, mid + int64(time.Millisecond), end - int64(2*time.Millisecond)})
	} else {
		msgs = append(msgs, msg{whatExecuteTransaction, t + int64(2*time.Millisecond), end - int64(2*time.Millisecond)})
	}
	for _, m := range msgs {
		if m.end <= m.start {
			continue
		}
		logged := w.dispatchLocked(m.start, m.end, m.start, activityH, "", m.what)
		w.runLocked(m.start, m.end, stackOf(looperBase, launchStacks[m.what]))
		w.recordBlockLocked(TruthBlock{Pid: a.pid, StartNs: m.start, EndNs: m.end, Handler: activityH, What: m.what, LoggedMs: logged})
	}
}

// TruthBlocks returns the main-thread messages the truth records, oldest
// first (see TruthBlock).
func (w *World) TruthBlocks() []TruthBlock {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	return slices.Clone(w.blocks)
}
