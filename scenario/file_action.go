package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/trace/sections"
)

// traceJSON is a scenario file's "trace": true, or an object with the
// trace's settings (perftest.TraceConfig).
type traceJSON struct {
	On            bool     `json:"-"`
	BufferKB      int      `json:"buffer_kb,omitempty"`
	Categories    []string `json:"categories,omitempty"`
	MaxDurationMs int      `json:"max_duration_ms,omitempty"`
	// Sections are the app's trace sections each step measures: a name,
	// or {"name", "main_thread"} (perftest.TraceConfig.Sections).
	Sections []sections.Spec `json:"sections,omitempty"`
}

func (t *traceJSON) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*t = traceJSON{On: on}
		return nil
	}
	type plain traceJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("trace: want true, false or {\"buffer_kb\", \"categories\", \"max_duration_ms\", \"sections\"}: %v", err)
	}
	*t = traceJSON(p)
	t.On = true
	return nil
}

// config is the session's TraceConfig; nil when the file asks for none.
func (t *traceJSON) config() (*perftest.TraceConfig, error) {
	if t == nil || !t.On {
		return nil, nil
	}
	if t.MaxDurationMs < 0 {
		return nil, fmt.Errorf("max_duration_ms %d is negative", t.MaxDurationMs)
	}
	tc := &perftest.TraceConfig{BufferKB: t.BufferKB, Categories: t.Categories, MaxDuration: time.Duration(t.MaxDurationMs) * time.Millisecond, Sections: t.Sections}
	if err := tc.Validate(); err != nil {
		return nil, err
	}
	return tc, nil
}

// actionJSON is an action of a scenario file.
type actionJSON struct {
	Action     string  `json:"action"`
	Kind       string  `json:"kind,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	FullyDrawn int     `json:"fully_drawn_ms,omitempty"`
	Activity   string  `json:"activity,omitempty"`
	Compile    string  `json:"compilation,omitempty"`
	Text       string  `json:"text,omitempty"`
	ID         string  `json:"id,omitempty"`
	Desc       string  `json:"desc,omitempty"`
	Input      string  `json:"input,omitempty"`
	X          *int    `json:"x,omitempty"`
	Y          *int    `json:"y,omitempty"`
	Direction  string  `json:"direction,omitempty"`
	Count      int     `json:"count,omitempty"`
	Distance   float64 `json:"distance,omitempty"`
	DurationMs int     `json:"duration_ms,omitempty"`
	Code       int     `json:"code,omitempty"`
	Ms         int     `json:"ms,omitempty"`
	TimeoutMs  int     `json:"timeout_ms,omitempty"`
}

// selector is the action's element selector.
func (a actionJSON) selector() (Selector, error) {
	n := 0
	var sel Selector
	if a.Text != "" {
		n, sel = n+1, Text(a.Text)
	}
	if a.ID != "" {
		n, sel = n+1, ID(a.ID)
	}
	if a.Desc != "" {
		n, sel = n+1, Desc(a.Desc)
	}
	if n != 1 {
		return sel, errors.New("give exactly one of text, id, desc")
	}
	return sel, nil
}

// maxMs bounds every time a scenario file gives in milliseconds: a sleep
// (MaxSleep), a wait, a swipe's duration.
const maxMs = int(MaxSleep / time.Millisecond)

// maxRepeat bounds a scenario's launch iterations and swipe counts: a
// thousand is hours of a phone's time; more is a typo that would run until
// killed.
const maxRepeat = 1000

// checkBounds refuses a negative number, or one past its maximum.
func (a actionJSON) checkBounds() error {
	for _, f := range []struct {
		name string
		v    int
		ms   bool
	}{{"iterations", a.Iterations, false}, {"count", a.Count, false}, {"duration_ms", a.DurationMs, true}, {"ms", a.Ms, true}, {"timeout_ms", a.TimeoutMs, true}, {"fully_drawn_ms", a.FullyDrawn, true}} {
		if f.v < 0 {
			return fmt.Errorf("%s %d is negative", f.name, f.v)
		}
		if f.ms && f.v > maxMs {
			return fmt.Errorf("%s %d is over the maximum %d (%v)", f.name, f.v, maxMs, MaxSleep)
		}
		if !f.ms && f.v > maxRepeat {
			return fmt.Errorf("%s %d is over the maximum %d", f.name, f.v, maxRepeat)
		}
	}
	return nil
}

func ms(v int) time.Duration { return time.Duration(v) * time.Millisecond }

// action is the Go action of the same name.
func (a actionJSON) action() (Action, error) {
	if err := a.checkBounds(); err != nil {
		return nil, err
	}
	switch a.Action {
	case "launch":
		return a.launch()
	case "tap":
		sel, err := a.selector()
		if err != nil {
			return nil, err
		}
		return Tap(sel), nil
	case "type":
		sel, err := a.selector()
		if err != nil {
			return nil, err
		}
		return Type(sel, a.Input), nil
	case "wait":
		sel, err := a.selector()
		if err != nil {
			return nil, err
		}
		return WaitFor(sel, ms(a.TimeoutMs)), nil
	case "tap_at":
		if a.X == nil || a.Y == nil || *a.X < 0 || *a.Y < 0 {
			return nil, errors.New("needs x and y, both ≥ 0")
		}
		return TapAt(*a.X, *a.Y), nil
	case "swipe", "fling":
		return a.swipe()
	case "back":
		return Back(), nil
	case "home":
		return Home(), nil
	case "key":
		if a.Code <= 0 {
			return nil, fmt.Errorf("code %d: want an Android KeyEvent code", a.Code)
		}
		return Key(a.Code), nil
	case "sleep":
		if a.Ms <= 0 {
			return nil, errors.New("needs ms > 0")
		}
		return Sleep(ms(a.Ms)), nil
	}
	return nil, errors.New("unknown action (want launch, tap, tap_at, swipe, fling, back, home, key, type, wait, sleep)")
}

func (a actionJSON) launch() (Action, error) {
	kind := StartKind(a.Kind)
	switch kind {
	case "":
		kind = Cold
	case Cold, Warm, Hot:
	default:
		return nil, fmt.Errorf("kind %s: want cold, warm or hot", excerpt.Quote(a.Kind))
	}
	comp, err := ParseCompilation(a.Compile)
	if err != nil {
		return nil, err
	}
	n := max(a.Iterations, 1)
	return LaunchWith(kind, n, StartupOptions{Activity: a.Activity, FullyDrawn: ms(a.FullyDrawn), Compilation: comp}), nil
}

func (a actionJSON) swipe() (Action, error) {
	switch Direction(a.Direction) {
	case Up, Down, Left, Right:
	default:
		return nil, fmt.Errorf("direction %s: want up, down, left or right", excerpt.Quote(a.Direction))
	}
	if a.Distance < 0 || a.Distance > 0.9 {
		return nil, fmt.Errorf("distance %v: want a fraction of the screen in (0, 0.9]", a.Distance)
	}
	if a.Action == "fling" {
		return FlingWith(SwipeOptions{Direction: Direction(a.Direction), Distance: a.Distance, Count: a.Count}), nil
	}
	return SwipeWith(SwipeOptions{Direction: Direction(a.Direction), Count: a.Count, Distance: a.Distance, Duration: ms(a.DurationMs)}), nil
}
