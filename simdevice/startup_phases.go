package simdevice

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/trace/tracewriter"
)

// ColdStart is how a cold start spends its time to Displayed, and what
// compiling the app's code ahead of time saves of it. The simulated trace
// writes the phases on the app's main thread as ActivityThread does
// (PostFork, bindApplication, activityStart, activityResume, then the first
// Choreographer#doFrame), and TruthStartup.Phases says what it wrote.
type ColdStart struct {
	// BindApplicationMs is bindApplication's time (Application.onCreate
	// and the content providers); 0: a tenth of the start.
	BindApplicationMs int `json:"bind_application_ms,omitempty"`
	// Sections are the app's own trace sections in bindApplication
	// ("com.example.App.onCreate"), one after another from its start.
	Sections []StartSection `json:"sections,omitempty"`
	// CompiledSavingMs is how much sooner a cold start is Displayed when
	// the app's code is compiled ahead of time (`cmd package compile -m
	// speed`, or speed-profile once a baseline profile is installed): it
	// comes off bindApplication and its first section, where the code ran
	// interpreted.
	CompiledSavingMs int `json:"compiled_saving_ms,omitempty"`
	// BaselineProfile says the APK ships a baseline profile, which
	// profileinstaller's INSTALL_PROFILE broadcast installs.
	BaselineProfile bool `json:"baseline_profile,omitempty"`
}

// StartSection is one of the app's trace sections in a cold start; the
// main thread spends the last IOMs of it in uninterruptible sleep (a file
// read).
type StartSection struct {
	Name string `json:"name"`
	Ms   int    `json:"ms"`
	IOMs int    `json:"io_ms,omitempty"`
}

// TruthPhase is one phase of a cold start on the app's main thread, as the
// simulated trace shows it: [StartNs, EndNs) on the monotonic clock, and
// the app's sections in it.
type TruthPhase struct {
	Name     string       `json:"name"`
	StartNs  int64        `json:"start_ns"`
	EndNs    int64        `json:"end_ns"`
	Sections []TruthSlice `json:"sections,omitempty"`
	// IONs is the main thread's time in uninterruptible sleep in the
	// phase (StartSection.IOMs); it runs the rest.
	IONs      int64   `json:"io_ns,omitempty"`
	sectionIO []int64 // each section's
}

// Names of the startup phases, as their slices are named.
const (
	PhaseProcessStart    = "process start"
	PhaseBindApplication = "bindApplication"
	PhaseActivityStart   = "activityStart"
	PhaseActivityResume  = "activityResume"
	PhaseFirstDoFrame    = "Choreographer#doFrame"
)

func (c ColdStart) validate(coldMs int) error {
	if c.BindApplicationMs < 0 || c.BindApplicationMs > coldMs/2 {
		return badField("startup.cold.bind_application_ms", "%d: from 0 to half of cold_ms (%d)", c.BindApplicationMs, coldMs/2)
	}
	bind, sum := c.bindMs(coldMs), 0
	for i, s := range c.Sections {
		cut := 0 // what compilation saves of it: the first only
		if i == 0 {
			cut = c.CompiledSavingMs
		}
		if s.Name == "" || strings.ContainsAny(s.Name, "|\n\x00") || s.Ms <= 0 || s.IOMs < 0 || s.IOMs >= s.Ms-cut {
			return badField(fmt.Sprintf("startup.cold.sections[%d]", i), "%q %d ms, io %d ms: a name without '|' or a newline, ms > 0, io_ms from 0 to less than ms (the first section: less compiled_saving_ms)", s.Name, s.Ms, s.IOMs)
		}
		sum += s.Ms
	}
	if len(c.Sections) > 0 && sum >= bind {
		return badField("startup.cold.sections", "%d ms in all, not within bindApplication's %d ms", sum, bind)
	}
	if c.CompiledSavingMs < 0 || c.CompiledSavingMs > 0 && c.CompiledSavingMs >= bind || len(c.Sections) > 0 && c.CompiledSavingMs >= c.Sections[0].Ms {
		return badField("startup.cold.compiled_saving_ms", "%d: from 0 to less than bindApplication and its first section", c.CompiledSavingMs)
	}
	return nil
}

func (c ColdStart) bindMs(coldMs int) int {
	if c.BindApplicationMs > 0 {
		return c.BindApplicationMs
	}
	return coldMs / 10
}

// Compiler filters the simulated package manager knows, and the state a
// package is installed in.
var compilerFilters = []string{"verify", "quicken", "space-profile", "space", "speed-profile", "speed", "everything"}

// compileState is the app's dexopt state: its compiler filter, why it
// has it, and whether profileinstaller installed its baseline profile.
type compileState struct {
	filter, reason string
	profile        bool
}

var installed = compileState{filter: "verify", reason: "install"}

// compiled reports whether the app's startup code runs compiled.
func (w *World) compiledLocked() bool {
	c := w.compile
	return c.filter == "speed" || c.filter == "everything" || c.filter == "speed-profile" && c.profile
}

// coldSaving is what compilation saves of a cold start now.
func (w *World) coldSavingLocked() time.Duration {
	if !w.compiledLocked() {
		return 0
	}
	return time.Duration(w.wl.Startup.Cold.CompiledSavingMs) * time.Millisecond
}

// compileTime is how long `cmd package compile -m speed` (or everything)
// takes the simulated phone: a large app's, longer than a device call's
// default deadline.
const compileTime = 12 * time.Second

// pmCompile runs `cmd package compile [-m FILTER] [-f] [-r REASON]
// [--reset] PKG`, printing "Success" as the package manager does once it
// compiled (compileTime for speed); --reset is refused to the shell of a
// user build before Android 14.
func (w *World) pmCompile(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var filter, pkg string
	reset := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-m", "-r":
			if i+1 >= len(args) {
				fmt.Fprintf(stderr, "Error: option %s needs a value\n", a)
				return 1
			}
			i++
			if a == "-m" {
				filter = args[i]
			}
		case "-f", "-c", "--check-prof", "true", "false":
		case "--reset":
			reset = true
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "Error: Unknown option: %s\n", a)
				return 1
			}
			pkg = a
		}
	}
	switch {
	case pkg != w.wl.Package:
		fmt.Fprintf(stdout, "Failure: package %s could not be compiled\n", pkg)
		return 1
	case !reset && !slices.Contains(compilerFilters, filter):
		fmt.Fprintf(stderr, "Error: %q is not a valid compiler filter.\n", filter)
		return 1
	}
	if reset && !w.cfg.Root && w.cfg.API < 34 {
		// Before ART service (Android 14) --reset clears the app's
		// profiles, which only the system or root may do.
		fmt.Fprintf(stderr, "Exception occurred while executing 'compile':\njava.lang.SecurityException: Only the system can clear all profile data\n")
		return 255
	}
	if filter == "speed" || filter == "everything" {
		if err := w.opt.sleep(ctx, compileTime); err != nil {
			return 130
		}
	}
	w.mu.Lock()
	if reset {
		w.compile = installed
	} else {
		w.compile.filter, w.compile.reason = filter, "cmdline"
	}
	w.mu.Unlock()
	fmt.Fprintln(stdout, "Success")
	return 0
}

// amBroadcast runs `am broadcast -a ACTION -n COMPONENT` for
// profileinstaller's ProfileInstallReceiver: INSTALL_PROFILE installs the
// app's baseline profile (result 1) or finds none (6); an app without
// profileinstaller has no receiver (result 0).
func (w *World) amBroadcast(args []string, stdout io.Writer) int {
	action := ""
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-a" {
			action = args[i+1]
		}
	}
	code := 0
	if action == "androidx.profileinstaller.action.INSTALL_PROFILE" && strings.Contains(strings.Join(args, " "), w.wl.Package+"/") {
		w.mu.Lock()
		code = 6
		if w.wl.Startup.Cold.BaselineProfile {
			code, w.compile.profile = 1, true
		}
		w.mu.Unlock()
	}
	fmt.Fprintf(stdout, "Broadcasting: Intent { act=%s flg=0x400000 }\nBroadcast completed: result=%d\n", action, code)
	return 0
}

// dexoptState is the "Dexopt state" section `dumpsys package <pkg>` ends
// with before Android 14 (PackageDexOptimizer's dump): the base APK's
// status and reason per instruction set.
func (w *World) dexoptState(out io.Writer) {
	w.mu.Lock()
	c := w.compile
	w.mu.Unlock()
	fmt.Fprintf(out, "\nDexopt state:\n  [%s]\n    path: %s\n      arm64: [status=%s] [reason=%s]\n", w.wl.Package, w.appPath(), c.filter, c.reason)
}

// coldPhasesLocked lays a cold start out on the main thread once its first
// frame f is made: PostFork a twentieth into the start, bindApplication from
// a tenth in (its sections one after another from its start), then
// activityStart and activityResume until the first frame's vsync, and
// the first frame's doFrame. k is the launch's noise factor.
func (w *World) coldPhasesLocked(ts *TruthStartup, f *TruthFrame, k float64) {
	c := w.wl.Startup.Cold
	t0, d := ts.StartNs, ts.DisplayedNs-ts.StartNs
	saving := w.coldSavingLocked()
	ms := func(v int, cut time.Duration) int64 {
		return int64(scaleMs(time.Duration(v)*time.Millisecond-cut, k))
	}
	bindStart := t0 + d/10
	bindEnd := bindStart + ms(c.bindMs(w.wl.Startup.ColdMs), saving)
	v := f.IntendedVsync
	if bindEnd >= v {
		return // too short a start for the phases to fit
	}
	bind := TruthPhase{Name: PhaseBindApplication, StartNs: bindStart, EndNs: bindEnd}
	for i, s := range c.Sections {
		cut := time.Duration(0)
		if i == 0 {
			cut = saving
		}
		n, io := ms(s.Ms, cut), ms(s.IOMs, 0)
		bind.Sections = append(bind.Sections, TruthSlice{Name: s.Name, DurNs: n})
		bind.sectionIO = append(bind.sectionIO, io)
		bind.IONs += io
	}
	resume := bindEnd + (v-bindEnd)*7/10
	ts.Phases = []TruthPhase{
		{Name: PhaseProcessStart, StartNs: t0 + d/20, EndNs: bindStart},
		bind,
		{Name: PhaseActivityStart, StartNs: bindEnd, EndNs: resume},
		{Name: PhaseActivityResume, StartNs: resume, EndNs: resume + (v-resume)/2},
		{Name: PhaseFirstDoFrame, StartNs: f.HandleInputStart, EndNs: f.SyncQueued},
	}
}

// launchOps are a start's events in the trace, on CPU 3: the main thread
// runs from its first phase to the end of the last of ActivityThread's
// (PostFork for a cold start's process start, then the phases' slices, of
// category am), with the app's sections in the phases that hold them (its
// own sections, recorded when atrace_apps names it), and the app's
// reportFullyDrawn when it called it. The first doFrame is the frame's.
func (j *traceJob) launchOps(ts *TruthStartup, feat traceFeatures, comm string) []op {
	main := int32(ts.Pid)
	o := &frameOps{j: j, feat: feat, main: main, pidText: fmt.Sprint(ts.Pid), names: map[int32]string{tidIdle: "swapper", main: comm}}
	var ops []op
	add := func(at int64, rank, sub int, e tracewriter.Event) {
		e.Ts = o.boot(at)
		ops = append(ops, op{ts: e.Ts, rank: rank, sub: sub, event: e})
	}
	slice := func(name, cat string, s, e int64, depth int) {
		if feat.cats[cat] && e > s {
			add(s, 2, depth, tracewriter.Event{PID: main, Print: "B|" + o.pidText + "|" + name})
			add(e, 1, -depth, tracewriter.Event{PID: main, Print: "E|" + o.pidText})
		}
	}
	ph := ts.Phases
	if n := len(ph) - 1; n > 0 {
		if feat.sched {
			add(ph[0].StartNs, 0, 0, tracewriter.Event{PID: tidIdle, Switch: &tracewriter.SchedSwitch{PrevComm: "swapper", NextComm: comm, NextPID: main, NextPrio: prioApp}})
			add(ph[n-1].EndNs, 4, 0, tracewriter.Event{PID: main, Switch: &tracewriter.SchedSwitch{PrevComm: comm, PrevPID: main, PrevPrio: prioApp, PrevState: stateSleeping, NextComm: "swapper"}})
		}
		for _, p := range ph[:n] {
			if p.Name == PhaseProcessStart {
				slice("PostFork", "am", p.StartNs, p.StartNs+(p.EndNs-p.StartNs)/4, 0)
				continue
			}
			slice(p.Name, "am", p.StartNs, p.EndNs, 0)
			at := p.StartNs
			for i, s := range p.Sections {
				slice(s.Name, catApp, at, at+s.DurNs, 1)
				if io := p.sectionIO[i]; io > 0 && feat.sched {
					add(at+s.DurNs-io, 4, 0, tracewriter.Event{PID: main, Switch: &tracewriter.SchedSwitch{PrevComm: comm, PrevPID: main, PrevPrio: prioApp, PrevState: stateDisk, NextComm: "swapper"}})
					add(at+s.DurNs, 0, 0, tracewriter.Event{PID: tidIdle, Switch: &tracewriter.SchedSwitch{PrevComm: "swapper", NextComm: comm, NextPID: main, NextPrio: prioApp}})
				}
				at += s.DurNs
			}
		}
	}
	if at := ts.drawnNs; at > 0 {
		slice("reportFullyDrawn() for "+j.window, "am", at, at+10_000, 0)
	}
	slices.SortStableFunc(ops, func(a, b op) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.rank, b.rank), cmp.Compare(a.sub, b.sub))
	})
	return ops
}

// fullyDrawnLocked marks the app's launch as fully drawn at t: the trace
// shows its reportFullyDrawn then. A process stopped before it never
// called it.
func (w *World) fullyDrawnLocked(t int64) {
	if n := len(w.startup); n > 0 && w.app != nil && w.startup[n-1].Pid == w.app.pid {
		w.startup[n-1].drawnNs = t
	}
}
