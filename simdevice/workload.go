package simdevice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Workload is a declarative description of an app's behaviour over time and
// per UI action. It is a Go value and has a JSON form (LoadWorkload).
//
// When the app is launched it is shown after Startup's time to Displayed and
// then runs the phase named Launch; a phase that ends runs its Next phase, or
// leaves the app idle (no frames) when Next is empty. Actions start phases.
type Workload struct {
	Name       string `json:"name"`
	Package    string `json:"package"`
	UID        int    `json:"uid"`
	Activity   string `json:"activity"` // main activity, ".MainActivity" or a full class name
	Debuggable bool   `json:"debuggable"`
	// Profileable is the manifest's <profileable android:shell="true">: a
	// release build simpleperf may profile from the shell (API 29+).
	// Debuggable apps are profileable anyway.
	Profileable bool    `json:"profileable,omitempty"`
	RefreshHz   float64 `json:"refresh_hz,omitempty"`

	Startup Startup `json:"startup"`
	Memory  Memory  `json:"memory"`

	Launch  string   `json:"launch"` // first phase after Displayed
	Phases  []Phase  `json:"phases"`
	Actions []Action `json:"actions,omitempty"`
	Screen  []Elem   `json:"screen,omitempty"`

	// FrameQuirks make the frame rows as hostile as real phones print them.
	FrameQuirks FrameQuirks `json:"frame_quirks,omitempty"`

	// Causes name why slow frames are slow (see Jank.Cause).
	Causes []Cause `json:"causes,omitempty"`
}

// Startup is how long each kind of launch takes, as `am start -W` reports it.
type Startup struct {
	ColdMs       int `json:"cold_ms"`
	WarmMs       int `json:"warm_ms"`
	HotMs        int `json:"hot_ms"`
	FullyDrawnMs int `json:"fully_drawn_ms,omitempty"` // 0: the app never calls reportFullyDrawn
	// Cold is how a cold start spends its time and how compilation
	// changes it (startup_phases.go).
	Cold ColdStart `json:"cold,omitempty"`
	// Warm and Hot are the app's own sections in a warm and a hot start
	// (startup_warm.go).
	Warm WarmStart `json:"warm,omitempty"`
	Hot  WarmStart `json:"hot,omitempty"`
}

// Memory is the app's memory right after it starts, in KiB.
type Memory struct {
	JavaKiB     int `json:"java_kib"`
	NativeKiB   int `json:"native_kib"`
	CodeKiB     int `json:"code_kib"`
	GraphicsKiB int `json:"graphics_kib"`
	OtherKiB    int `json:"other_kib"` // stack, private other and system together
	// RSSExtraKiB is how much RSS exceeds PSS (shared pages counted whole).
	RSSExtraKiB int `json:"rss_extra_kib"`
}

// Phase is a stretch of app behaviour with a fixed frame cadence and load.
type Phase struct {
	Name       string `json:"name"`
	DurationMs int    `json:"duration_ms"` // 0: until an action starts another phase
	Next       string `json:"next,omitempty"`

	// EveryVsyncs is the frame cadence: 1 renders in every vsync, N in every
	// Nth, 0 renders nothing (idle).
	EveryVsyncs int `json:"every_vsyncs"`
	// FrameMs is the duration of a normal frame; 0 means 45% of a period.
	FrameMs float64 `json:"frame_ms,omitempty"`
	Janks   []Jank  `json:"janks,omitempty"`

	CPU []ThreadLoad `json:"cpu,omitempty"`

	// Native and Java heap growth while the phase runs, in KiB per second.
	JavaGrowthKiBps   float64 `json:"java_growth_kibps,omitempty"`
	NativeGrowthKiBps float64 `json:"native_growth_kibps,omitempty"`
	// Leak makes the phase keep instances of a class it never frees.
	Leak *Leak `json:"leak,omitempty"`

	RxBps float64 `json:"rx_bps,omitempty"`
	TxBps float64 `json:"tx_bps,omitempty"`

	Crash *Crash `json:"crash,omitempty"`

	// Sections are trace sections the app writes in the phase's frames.
	Sections []Section `json:"sections,omitempty"`
}

// Jank makes some frames of a phase slow: the frames at the 0-based indices
// At (counted from the phase start), and every Every-th frame when Every > 0
// (frames Every-1, 2·Every-1, …). A slow frame lasts Vsyncs refresh periods
// minus a quarter period, or Ms milliseconds when Ms is set, and keeps the
// main thread busy, so the vsyncs it spans render nothing.
//
// Wait says what the main thread waits on for most of a slow frame's
// layout, as a Perfetto trace of the frame shows it: "binder" (a binder
// call to the system, asleep until the reply), "io" (uninterruptible sleep,
// reading storage), "lock" (asleep on a monitor held by another thread);
// empty, it computes, preempted for a while. With SurfaceFlinger the frame
// is not slow at all: the app finishes it in time and SurfaceFlinger misses
// the vsync it was due in (FrameTimeline: SurfaceFlinger CPU Deadline
// Missed), so it is presented a period late, and the frames queued behind
// it too (Buffer Stuffing) until the app's next pause.
type Jank struct {
	At             []int   `json:"at,omitempty"`
	Every          int     `json:"every,omitempty"`
	Vsyncs         int     `json:"vsyncs,omitempty"`
	Ms             float64 `json:"ms,omitempty"`
	Wait           string  `json:"wait,omitempty"`
	SurfaceFlinger bool    `json:"surfaceflinger,omitempty"`
	// Cause names the Workload.Causes entry that makes these frames slow:
	// the time a frame takes beyond a normal one is that cause's work. Without
	// one, every stage of the frame stretches alike.
	Cause string `json:"cause,omitempty"`
	// ANR makes the system report the app not responding five seconds
	// into the cause's work (the frame must last longer than that).
	ANR bool `json:"anr,omitempty"`
}

// Cause is a reason frames are slow: work the app does, where in a frame
// it runs, the Looper message it runs in and the main thread's stack while
// it runs. The device logs the message the way Android's Looper does when
// log.looper.<uid>.main.slow is set, samples the stack for simpleperf, and
// records the cause of every frame and message in the truth.
type Cause struct {
	Name string `json:"name"`
	// Phase is the frame phase the work falls in (frames.Phase):
	// "wait" is a Looper message of its own that runs just before the
	// frame, which then starts late; "input", "animation", "layout" and
	// "draw" run inside the frame's Choreographer message; "sync",
	// "commands" and "swap" are RenderThread work, off the main thread.
	Phase string `json:"phase"`
	// Handler, Callback and What are the message of a "wait" cause as
	// Looper prints it (h=, c= without the identity hash, m=). Work inside
	// the frame runs in the Choreographer's frame message.
	Handler  string `json:"handler,omitempty"`
	Callback string `json:"callback,omitempty"`
	What     int    `json:"what,omitempty"`
	// Stack is the main thread's stack while the work runs, outermost
	// frame first, as Java method names ("android.os.Looper.loop", …,
	// "com.example.Feed.bind"); empty for RenderThread work.
	Stack []string `json:"stack,omitempty"`
}

// The main thread's waits a slow frame can have (Jank.Wait).
const (
	WaitBinder = "binder"
	WaitIO     = "io"
	WaitLock   = "lock"
)

// ThreadLoad is the CPU one thread uses, in percent of one core.
type ThreadLoad struct {
	Thread  string  `json:"thread"` // "main", "RenderThread" or a worker's name
	Percent float64 `json:"percent"`
}

// Crash kills the app AfterMs into the phase with a Java exception. With
// Restart the system starts a new process (new pid) that runs the launch
// phase again; without it the app is gone.
type Crash struct {
	AfterMs   int    `json:"after_ms"`
	Exception string `json:"exception"`
	Restart   bool   `json:"restart,omitempty"`
}

// Action starts Phase when the UI event On happens: "tap:<element text>",
// "swipe", "key:<keycode>" or "text".
type Action struct {
	On    string `json:"on"`
	Phase string `json:"phase"`
}

// Elem is one view on the app's screen.
type Elem struct {
	Class       string `json:"class"`
	Text        string `json:"text,omitempty"`
	ResourceID  string `json:"resource_id,omitempty"`
	ContentDesc string `json:"content_desc,omitempty"`
	Bounds      [4]int `json:"bounds"` // left, top, right, bottom
	Clickable   bool   `json:"clickable,omitempty"`
	Scrollable  bool   `json:"scrollable,omitempty"`
}

// ErrWorkload is wrapped by every workload validation error.
var ErrWorkload = errors.New("invalid workload")

// LoadWorkload reads a workload from a JSON file and validates it. Unknown
// fields are errors so that a typo does not silently change a test.
func LoadWorkload(path string) (*Workload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("simdevice: workload: %w", err)
	}
	w, err := ParseWorkload(b)
	if err != nil {
		return nil, fmt.Errorf("simdevice: workload %s: %w", path, err)
	}
	return w, nil
}

// ParseWorkload decodes and validates a workload's JSON form.
func ParseWorkload(b []byte) (*Workload, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w Workload
	if err := dec.Decode(&w); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: JSON syntax at byte %d: %v", ErrWorkload, se.Offset, err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%w: field %q: want %s, got %s", ErrWorkload, te.Field, te.Type, te.Value)
		}
		return nil, fmt.Errorf("%w: %v", ErrWorkload, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the workload object", ErrWorkload)
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

// Validate reports the first field that cannot be simulated, naming it by
// its JSON path.
func (w *Workload) Validate() error {
	if err := w.validateApp(); err != nil {
		return err
	}
	if err := w.validateCauses(); err != nil {
		return err
	}
	if len(w.Phases) == 0 {
		return badField("phases", "at least one phase is needed")
	}
	names := map[string]bool{}
	for i := range w.Phases {
		if err := w.validatePhase(fmt.Sprintf("phases[%d]", i), &w.Phases[i], names); err != nil {
			return err
		}
	}
	for i, p := range w.Phases {
		if p.Next != "" && !names[p.Next] {
			return badField(fmt.Sprintf("phases[%d].next", i), "no phase named %q", p.Next)
		}
	}
	if !names[w.Launch] {
		return badField("launch", "no phase named %q", w.Launch)
	}
	for i, a := range w.Actions {
		if err := validateAction(fmt.Sprintf("actions[%d]", i), a, names); err != nil {
			return err
		}
	}
	if err := w.FrameQuirks.validate(); err != nil {
		return err
	}
	for i, e := range w.Screen {
		b := e.Bounds
		if e.Class == "" {
			return badField(fmt.Sprintf("screen[%d].class", i), "empty")
		}
		if b[0] < 0 || b[1] < 0 || b[2] <= b[0] || b[3] <= b[1] {
			return badField(fmt.Sprintf("screen[%d].bounds", i), "%v is not a rectangle", b)
		}
	}
	return nil
}

// badField is an ErrWorkload naming the field at fault by its JSON path.
func badField(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrWorkload, field, fmt.Sprintf(format, args...))
}

// validateApp checks the app's identity, refresh rate, startup times and
// memory.
func (w *Workload) validateApp() error {
	if !validPackage(w.Package) {
		return badField("package", "%q is not a Java package name", w.Package)
	}
	if w.UID < 10000 || w.UID > 19999 {
		return badField("uid", "%d is not an app uid (10000..19999)", w.UID)
	}
	if w.Activity == "" {
		return badField("activity", "empty")
	}
	if !validPackage(strings.TrimPrefix(w.Activity, ".")) {
		return badField("activity", "%q is not a class name", w.Activity)
	}
	if w.RefreshHz < 0 || w.RefreshHz > 240 {
		return badField("refresh_hz", "%g out of range 0..240", w.RefreshHz)
	}
	if w.Startup.ColdMs <= 0 || w.Startup.WarmMs < 0 || w.Startup.HotMs < 0 || w.Startup.FullyDrawnMs < 0 {
		return badField("startup", "cold_ms must be > 0 and the other times >= 0")
	}
	if w.Startup.ColdMs > 60000 {
		return badField("startup.cold_ms", "%d ms is longer than am start waits", w.Startup.ColdMs)
	}
	if err := w.Startup.Cold.validate(w.Startup.ColdMs); err != nil {
		return err
	}
	if err := w.Startup.validateWarm(); err != nil {
		return err
	}
	m := w.Memory
	if m.JavaKiB < 0 || m.NativeKiB < 0 || m.CodeKiB < 0 || m.GraphicsKiB < 0 || m.OtherKiB < 0 || m.RSSExtraKiB < 0 {
		return badField("memory", "sizes must be >= 0")
	}
	return nil
}

// validatePhase checks the phase at path f and adds its name to names.
func (w *Workload) validatePhase(f string, p *Phase, names map[string]bool) error {
	if p.Name == "" {
		return badField(f+".name", "empty")
	}
	if names[p.Name] {
		return badField(f+".name", "%q used twice", p.Name)
	}
	names[p.Name] = true
	if p.DurationMs < 0 {
		return badField(f+".duration_ms", "%d < 0", p.DurationMs)
	}
	if p.EveryVsyncs < 0 || p.EveryVsyncs > 1000 {
		return badField(f+".every_vsyncs", "%d out of range 0..1000", p.EveryVsyncs)
	}
	if p.FrameMs < 0 || p.FrameMs > 10000 {
		return badField(f+".frame_ms", "%g out of range 0..10000", p.FrameMs)
	}
	for j, jk := range p.Janks {
		if err := w.validateJank(fmt.Sprintf("%s.janks[%d]", f, j), jk); err != nil {
			return err
		}
	}
	for j, c := range p.CPU {
		cf := fmt.Sprintf("%s.cpu[%d]", f, j)
		if !validThreadName(c.Thread) {
			return badField(cf+".thread", "%q is not a thread name (1..15 printable characters, no parentheses)", c.Thread)
		}
		if c.Percent < 0 || c.Percent > 100 {
			return badField(cf+".percent", "%g out of range 0..100 (one core)", c.Percent)
		}
	}
	if err := validateSections(f, p.Sections); err != nil {
		return err
	}
	if p.RxBps < 0 || p.TxBps < 0 {
		return badField(f, "rx_bps and tx_bps must be >= 0")
	}
	if p.JavaGrowthKiBps < -1e6 || p.NativeGrowthKiBps < -1e6 {
		return badField(f, "growth out of range")
	}
	if err := p.Leak.validate(f); err != nil {
		return err
	}
	if c := p.Crash; c != nil {
		if c.AfterMs < 0 || (p.DurationMs > 0 && c.AfterMs >= p.DurationMs) {
			return badField(f+".crash.after_ms", "%d is not inside the phase", c.AfterMs)
		}
		if c.Exception == "" {
			return badField(f+".crash.exception", "empty")
		}
	}
	return nil
}

// validateJank checks the jank at path jf.
func (w *Workload) validateJank(jf string, jk Jank) error {
	if jk.Cause != "" && w.cause(jk.Cause) == nil {
		return badField(jf+".cause", "no cause named %q", jk.Cause)
	}
	if jk.ANR && (jk.Cause == "" || jk.Ms <= 5000) {
		return badField(jf+".anr", "an ANR needs a cause and a frame longer than 5 s (ms > 5000)")
	}
	switch {
	case jk.SurfaceFlinger && (jk.Vsyncs > 0 || jk.Ms > 0 || jk.Wait != "" || jk.Cause != ""):
		return badField(jf, "a SurfaceFlinger jank has no vsyncs, ms, wait or cause: the app's frame is on time")
	case !jk.SurfaceFlinger && (jk.Vsyncs > 0) == (jk.Ms > 0):
		return badField(jf, "set exactly one of vsyncs and ms")
	}
	switch jk.Wait {
	case "", WaitBinder, WaitIO, WaitLock:
	default:
		return badField(jf+".wait", "%q: want binder, io, lock or nothing", jk.Wait)
	}
	if jk.Vsyncs > 1000 || jk.Ms > 60000 {
		return badField(jf, "slow frame longer than a minute")
	}
	if jk.Every < 0 || (jk.Every == 0 && len(jk.At) == 0) {
		return badField(jf, "set at or every > 0")
	}
	for _, a := range jk.At {
		if a < 0 {
			return badField(jf+".at", "frame index %d < 0", a)
		}
	}
	return nil
}

// validateAction checks the action at path f against the phase names.
func validateAction(f string, a Action, names map[string]bool) error {
	if !names[a.Phase] {
		return badField(f+".phase", "no phase named %q", a.Phase)
	}
	kind, arg, _ := strings.Cut(a.On, ":")
	switch kind {
	case "tap":
		if arg == "" {
			return badField(f+".on", "%q: tap needs an element text", a.On)
		}
	case "key":
		if _, err := strconv.Atoi(arg); err != nil {
			return badField(f+".on", "%q: key needs a numeric keycode", a.On)
		}
	case "swipe", "text":
	default:
		return badField(f+".on", "%q: want tap:<text>, swipe, key:<code> or text", a.On)
	}
	return nil
}

// clone returns a deep copy, so a device never shares slices with the
// caller's value.
func (w *Workload) clone() *Workload {
	c := *w
	c.Phases = make([]Phase, len(w.Phases))
	for i, p := range w.Phases {
		p.Janks = append([]Jank(nil), p.Janks...)
		for j := range p.Janks {
			p.Janks[j].At = append([]int(nil), p.Janks[j].At...)
		}
		p.CPU = append([]ThreadLoad(nil), p.CPU...)
		p.Sections = append([]Section(nil), p.Sections...)
		if p.Crash != nil {
			cr := *p.Crash
			p.Crash = &cr
		}
		c.Phases[i] = p
	}
	c.Causes = make([]Cause, len(w.Causes))
	for i, cs := range w.Causes {
		cs.Stack = append([]string(nil), cs.Stack...)
		c.Causes[i] = cs
	}
	c.Actions = append([]Action(nil), w.Actions...)
	c.Screen = append([]Elem(nil), w.Screen...)
	return &c
}

// phase returns the phase named name.
func (w *Workload) phase(name string) *Phase {
	for i := range w.Phases {
		if w.Phases[i].Name == name {
			return &w.Phases[i]
		}
	}
	return nil
}

// component is the main activity as "pkg/full.Class".
func (w *Workload) component() string {
	return w.Package + "/" + w.activityClass()
}

// shortComponent is the main activity as am prints it, "pkg/.Class" when
// the class is inside the package.
func (w *Workload) shortComponent() string {
	c := w.activityClass()
	if strings.HasPrefix(c, w.Package+".") {
		return w.Package + "/" + strings.TrimPrefix(c, w.Package)
	}
	return w.Package + "/" + c
}

func (w *Workload) activityClass() string {
	if strings.HasPrefix(w.Activity, ".") {
		return w.Package + w.Activity
	}
	return w.Activity
}

// validPackage accepts dotted Java identifiers, which is also what makes a
// package name safe to print into a shell line.
func validPackage(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			ok := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
			if !ok {
				return false
			}
		}
	}
	return true
}

func validThreadName(s string) bool {
	if s == "" || len(s) > 15 {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r > 0x7e || r == '(' || r == ')' {
			return false
		}
	}
	return true
}
