package trace

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Clock is a Perfetto builtin clock (ClockSnapshot.Clock.BuiltinClocks).
type Clock uint32

// The builtin clocks of Android traces. Boottime is the trace clock of
// Android traces and the clock of ftrace and FrameTimeline timestamps;
// Monotonic is the clock of dumpsys gfxinfo and of perfgate's steps.
const (
	Realtime     Clock = 1
	Monotonic    Clock = 3
	MonotonicRaw Clock = 5
	Boottime     Clock = 6
)

func (c Clock) String() string {
	switch c {
	case Realtime:
		return "realtime"
	case 2:
		return "realtime_coarse"
	case Monotonic:
		return "monotonic"
	case 4:
		return "monotonic_coarse"
	case MonotonicRaw:
		return "monotonic_raw"
	case Boottime:
		return "boottime"
	}
	return fmt.Sprintf("clock%d", uint32(c))
}

// MarshalText writes the clock's name.
func (c Clock) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a clock's name.
func (c *Clock) UnmarshalText(b []byte) error {
	for _, k := range []Clock{Realtime, 2, Monotonic, 4, MonotonicRaw, Boottime} {
		if k.String() == string(b) {
			*c = k
			return nil
		}
	}
	var n uint32
	if _, err := fmt.Sscanf(string(b), "clock%d", &n); err == nil {
		*c = Clock(n)
		return nil
	}
	return fmt.Errorf("trace: unknown clock %q", b)
}

// JankType is FrameTimeline's classification of a frame's jank, a bitmask
// (FrameTimelineEvent.JankType): SurfaceFlinger sets one bit per reason.
type JankType uint32

// The jank types, with the values of FrameTimelineEvent.JankType.
const (
	JankNone                      JankType = 1
	JankSFScheduling              JankType = 2
	JankPredictionError           JankType = 4
	JankDisplayHAL                JankType = 8
	JankSFCPUDeadlineMissed       JankType = 16
	JankSFGPUDeadlineMissed       JankType = 32
	JankAppDeadlineMissed         JankType = 64
	JankBufferStuffing            JankType = 128
	JankUnknown                   JankType = 256
	JankSFStuffing                JankType = 512
	JankDropped                   JankType = 1024
	JankNonAnimating              JankType = 2048
	JankAppResyncedJitter         JankType = 4096
	JankDisplayNotOn              JankType = 8192
	JankModeChangeInProgress      JankType = 16384
	JankPowerModeChangeInProgress JankType = 32768
)

// AppJank is the set of jank types that count as the app's own: a frame is
// an app jank when its actual (surface) frame has one of these bits.
//
// App Deadline Missed: the app's work on the frame (from the Choreographer
// wake-up to the later of posting the buffer and the GPU finishing) ran past
// its deadline. App Resynced Jitter: the app's frame was late because its
// vsync was resynchronised, which Perfetto also counts as the app's
// (android_is_app_jank_type). Left out: Buffer Stuffing, a queue of buffers
// the app sent ahead, presented one vsync late however fast the app was (the
// frames stay smooth; it is latency, not a missed frame), and Unknown, which
// SurfaceFlinger could attribute to neither the app nor itself. Both are still
// counted under their own names.
const AppJank = JankAppDeadlineMissed | JankAppResyncedJitter

// jankNames are the names the Perfetto UI shows, in bit order.
var jankNames = []struct {
	bit  JankType
	name string
}{
	{JankNone, "None"},
	{JankSFScheduling, "SurfaceFlinger Scheduling"},
	{JankPredictionError, "Prediction Error"},
	{JankDisplayHAL, "Display HAL"},
	{JankSFCPUDeadlineMissed, "SurfaceFlinger CPU Deadline Missed"},
	{JankSFGPUDeadlineMissed, "SurfaceFlinger GPU Deadline Missed"},
	{JankAppDeadlineMissed, "App Deadline Missed"},
	{JankBufferStuffing, "Buffer Stuffing"},
	{JankUnknown, "Unknown Jank"},
	{JankSFStuffing, "SurfaceFlinger Stuffing"},
	{JankDropped, "Dropped Frame"},
	{JankNonAnimating, "Non Animating"},
	{JankAppResyncedJitter, "App Resynced Jitter"},
	{JankDisplayNotOn, "Display not ON"},
	{JankModeChangeInProgress, "ModeChange in progress"},
	{JankPowerModeChangeInProgress, "PowerModeChange in progress"},
}

// Names lists the frame's jank types by name ("Unspecified" for 0), bits
// no Android version defines as "bit N".
func (j JankType) Names() []string {
	if j == 0 {
		return []string{"Unspecified"}
	}
	var out []string
	rest := j
	for _, n := range jankNames {
		if j&n.bit != 0 {
			out = append(out, n.name)
			rest &^= n.bit
		}
	}
	for b := 0; rest != 0; b++ {
		if rest&(1<<b) != 0 {
			out = append(out, fmt.Sprintf("bit %d", b))
			rest &^= 1 << b
		}
	}
	return out
}

func (j JankType) String() string { return strings.Join(j.Names(), ", ") }

// Janky tells whether the frame janked for any reason: a bit other than
// None, Non Animating and Display not ON (which are not janks).
func (j JankType) Janky() bool {
	return j&^(JankNone|JankNonAnimating|JankDisplayNotOn) != 0
}

// App tells whether the jank counts as the app's (see AppJank).
func (j JankType) App() bool { return j&AppJank != 0 }

// MarshalJSON writes the names, e.g. ["App Deadline Missed","Buffer Stuffing"].
func (j JankType) MarshalJSON() ([]byte, error) { return json.Marshal(j.Names()) }

// UnmarshalJSON reads what MarshalJSON writes.
func (j *JankType) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	*j = 0
	for _, s := range names {
		v, ok := JankTypeByName(s)
		if !ok {
			return fmt.Errorf("trace: unknown jank type %q", s)
		}
		*j |= v
	}
	return nil
}

// JankTypeByName is the jank type a name stands for ("bit N" included).
func JankTypeByName(s string) (JankType, bool) {
	if s == "Unspecified" {
		return 0, true
	}
	for _, n := range jankNames {
		if n.name == s {
			return n.bit, true
		}
	}
	var b uint
	if _, err := fmt.Sscanf(s, "bit %d", &b); err == nil && b < 32 {
		return 1 << b, true
	}
	return 0, false
}

// PresentType is how a frame was presented (FrameTimelineEvent.PresentType).
type PresentType int32

// The present types.
const (
	PresentUnspecified PresentType = 0
	PresentOnTime      PresentType = 1
	PresentLate        PresentType = 2
	PresentEarly       PresentType = 3
	PresentDropped     PresentType = 4
	PresentUnknown     PresentType = 5
)

var presentNames = []string{"Unspecified", "On-time Present", "Late Present", "Early Present", "Dropped Frame", "Unknown Present"}

func (p PresentType) String() string { return enumName(presentNames, int32(p), "present type") }

// MarshalText writes the name the Perfetto UI shows.
func (p PresentType) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (p *PresentType) UnmarshalText(b []byte) error {
	v, err := enumValue(presentNames, b, "present type")
	*p = PresentType(v)
	return err
}

// enumName is an enum value's name, or "<what> N" for one without.
func enumName(names []string, v int32, what string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s %d", what, v)
}

// enumValue reads what enumName writes.
func enumValue(names []string, b []byte, what string) (int32, error) {
	for i, n := range names {
		if n == string(b) {
			return int32(i), nil
		}
	}
	var n int32
	if _, err := fmt.Sscanf(string(b), what+" %d", &n); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("trace: unknown %s %q", what, b)
}

// ThreadState is what a thread was doing, from the scheduler's events.
type ThreadState uint8

// The thread states of a breakdown.
const (
	StateUnknown         ThreadState = iota // no scheduler event told
	StateRunning                            // on a CPU
	StateRunnable                           // woken or preempted, waiting for a CPU
	StateSleeping                           // interruptible sleep (S)
	StateUninterruptible                    // uninterruptible sleep (D), mostly I/O
	StateBinder                             // asleep (S or D) while its binder call is outstanding
	StateOther                              // stopped, traced, dead, parked
	numStates
)

var stateNames = [numStates]string{"unknown", "running", "runnable", "sleeping", "uninterruptible", "binder", "other"}

func (s ThreadState) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("state %d", uint8(s))
}

// States is how long a thread spent in each state over an interval, in ns;
// the fields add up to the interval's length.
type States struct {
	RunningNs         int64 `json:"running_ns"`
	RunnableNs        int64 `json:"runnable_ns"`
	SleepingNs        int64 `json:"sleeping_ns"`
	UninterruptibleNs int64 `json:"uninterruptible_ns"`
	BinderNs          int64 `json:"binder_ns"`
	OtherNs           int64 `json:"other_ns"`
	// UnknownNs is the part no scheduler event covers (before the thread's
	// first event in the trace).
	UnknownNs int64 `json:"unknown_ns"`
}

// Get is the time spent in state s.
func (s *States) Get(st ThreadState) int64 {
	switch st {
	case StateRunning:
		return s.RunningNs
	case StateRunnable:
		return s.RunnableNs
	case StateSleeping:
		return s.SleepingNs
	case StateUninterruptible:
		return s.UninterruptibleNs
	case StateBinder:
		return s.BinderNs
	case StateOther:
		return s.OtherNs
	}
	return s.UnknownNs
}

// Add counts d ns more in state st.
func (s *States) Add(st ThreadState, d int64) {
	switch st {
	case StateRunning:
		s.RunningNs += d
	case StateRunnable:
		s.RunnableNs += d
	case StateSleeping:
		s.SleepingNs += d
	case StateUninterruptible:
		s.UninterruptibleNs += d
	case StateBinder:
		s.BinderNs += d
	case StateOther:
		s.OtherNs += d
	default:
		s.UnknownNs += d
	}
}

// Total is the sum of every state.
func (s *States) Total() int64 {
	return s.RunningNs + s.RunnableNs + s.SleepingNs + s.UninterruptibleNs + s.BinderNs + s.OtherNs + s.UnknownNs
}

// Slice is one atrace (or TrackEvent) slice on a thread, times on the trace
// clock in ns.
type Slice struct {
	Name  string `json:"name"`
	TID   int32  `json:"tid"`
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
	// Depth is how many slices of the same thread it is nested in.
	Depth int `json:"depth"`
}

// Dur is the slice's length in ns.
func (s Slice) Dur() int64 { return s.End - s.Start }

// Frame is one actual frame of an app's layer (FrameTimeline's
// ActualSurfaceFrameStart to its FrameEnd), with its expected frame where
// the trace has it. Times are on the trace clock, in ns.
type Frame struct {
	Layer        string `json:"layer"`
	PID          int32  `json:"pid"`
	Token        int64  `json:"token"`
	DisplayToken int64  `json:"display_frame_token"`
	// Start and End are the app's actual work on the frame: from the
	// Choreographer wake-up to the later of posting the buffer and the GPU
	// finishing.
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
	// ExpectedStart and ExpectedEnd are the timeline SurfaceFlinger planned
	// for the token; 0 when the trace has no expected frame for it.
	ExpectedStart int64          `json:"expected_start_ns,omitempty"`
	ExpectedEnd   int64          `json:"expected_end_ns,omitempty"`
	Jank          JankType       `json:"jank_type"`
	Present       PresentType    `json:"present_type"`
	OnTimeFinish  bool           `json:"on_time_finish"`
	GPUComposite  bool           `json:"gpu_composition"`
	Prediction    PredictionType `json:"prediction_type"`
	// DisplayJank is the jank type of SurfaceFlinger's display frame this
	// frame was composited in, when the trace has it.
	DisplayJank *JankType `json:"display_frame_jank_type,omitempty"`
}

// Time is the frame's place in time: its expected start (the vsync it was
// meant for, like gfxinfo's IntendedVsync) when known, else its actual start.
func (f *Frame) Time() int64 {
	if f.ExpectedStart != 0 {
		return f.ExpectedStart
	}
	return f.Start
}

// Dur is the frame's actual length in ns.
func (f *Frame) Dur() int64 { return f.End - f.Start }

// PredictionType says whether SurfaceFlinger's prediction for the frame was
// still valid (FrameTimelineEvent.PredictionType).
type PredictionType int32

var predictionNames = []string{"Unspecified", "Valid Prediction", "Expired Prediction", "Unknown Prediction"}

func (p PredictionType) String() string {
	return enumName(predictionNames, int32(p), "prediction type")
}

// MarshalText writes the name the Perfetto UI shows.
func (p PredictionType) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (p *PredictionType) UnmarshalText(b []byte) error {
	v, err := enumValue(predictionNames, b, "prediction type")
	*p = PredictionType(v)
	return err
}
