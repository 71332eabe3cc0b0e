package scenario

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electricbubble/guia2"
)

// An Action is something the user does to the app; Scenario.Step runs
// actions as a measured step.
type Action interface {
	Do(ctx context.Context, d *Driver) error
	String() string
}

type action struct {
	name string
	do   func(ctx context.Context, d *Driver) error
}

// waiting is an action that waits on purpose (a Sleep, a WaitFor's
// timeout): its deadline is that much later than the ActionTimeout.
type waiting struct {
	action
	wait time.Duration
}

// waits is how long a waits on purpose, beyond the time any action takes.
func waits(a Action) time.Duration {
	if x, ok := a.(waiting); ok {
		return x.wait
	}
	return 0
}

func (a action) Do(ctx context.Context, d *Driver) error { return a.do(ctx, d) }
func (a action) String() string                          { return a.name }

// Func makes an Action of a function, for anything the built-in actions do
// not cover.
func Func(name string, fn func(ctx context.Context, d *Driver) error) Action {
	return action{name, fn}
}

// A Selector finds an element on the screen.
type Selector struct {
	strategy, value string
}

// Text selects the element whose text is s.
func Text(s string) Selector { return Selector{"text", s} }

// ID selects the element with resource id s, e.g.
// "com.example.feed:id/list".
func ID(s string) Selector { return Selector{"id", s} }

// Desc selects the element whose content description is s.
func Desc(s string) Selector { return Selector{"desc", s} }

func (s Selector) String() string { return fmt.Sprintf("%s %q", s.strategy, s.value) }

func (s Selector) by() guia2.BySelector {
	switch s.strategy {
	case "id":
		return guia2.BySelector{ResourceIdID: s.value}
	case "desc":
		return guia2.BySelector{ContentDescription: s.value}
	}
	return guia2.BySelector{UiAutomator: "new UiSelector().text(" + strconv.Quote(s.value) + ")"}
}

// ErrNotFound means no element matched a selector within the wait.
var ErrNotFound = errors.New("element not found")

// find waits for the element, polling every 100 ms up to the driver's
// WaitTimeout (or timeout when positive).
func (d *Driver) find(ctx context.Context, sel Selector, timeout time.Duration) (*guia2.Element, error) {
	if timeout <= 0 {
		timeout = d.opts.WaitTimeout
	}
	deadline := time.Now().Add(timeout)
	for {
		var el *guia2.Element
		err := d.do(ctx, "find "+sel.String(), func(g *guia2.Driver) (err error) {
			el, err = g.FindElement(sel.by())
			return err
		})
		if err == nil {
			return el, nil
		}
		if !strings.Contains(err.Error(), "no such element") {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s within %v%s", ErrNotFound, sel, timeout, d.onScreen(ctx, sel))
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// Tap taps the element sel selects, waiting for it to appear.
func Tap(sel Selector) Action {
	return action{"tap " + sel.String(), func(ctx context.Context, d *Driver) error {
		el, err := d.find(ctx, sel, 0)
		if err != nil {
			return err
		}
		return d.do(ctx, "tap "+sel.String(), func(*guia2.Driver) error { return el.Click() })
	}}
}

// TapAt taps the screen at (x, y) pixels.
func TapAt(x, y int) Action {
	return action{fmt.Sprintf("tap at %d,%d", x, y), func(ctx context.Context, d *Driver) error {
		if x < 0 || y < 0 || x >= d.w || y >= d.h {
			return fmt.Errorf("scenario tap at %d,%d: outside the %dx%d screen", x, y, d.w, d.h)
		}
		return d.do(ctx, fmt.Sprintf("tap at %d,%d", x, y), func(g *guia2.Driver) error { return g.Tap(x, y) })
	}}
}

// Direction is which way the content moves under the finger: Up scrolls a
// list down to later items (the finger moves up).
type Direction string

// The directions a swipe goes.
const (
	Up    Direction = "up"
	Down  Direction = "down"
	Left  Direction = "left"
	Right Direction = "right"
)

// SwipeOptions shape a swipe. The zero value (with Direction set) swipes
// once across 60 % of the screen in 300 ms through its middle.
type SwipeOptions struct {
	Direction Direction
	// Distance is the fraction of the screen the finger travels, in
	// (0, 0.9]; default 0.6.
	Distance float64
	// Duration is how long one swipe takes; default 300 ms. A fling is a
	// swipe of 50 ms.
	Duration time.Duration
	// Count is how many swipes; default 1.
	Count int
	// Pause is the wait after each swipe, for the content to settle;
	// default 200 ms.
	Pause time.Duration
}

// Swipe swipes count times in dir with the default distance and speed.
func Swipe(dir Direction, count int) Action {
	return SwipeWith(SwipeOptions{Direction: dir, Count: count})
}

// Fling swipes once in dir, fast (50 ms) across half the screen, so the
// content keeps moving.
func Fling(dir Direction) Action { return FlingWith(SwipeOptions{Direction: dir}) }

// FlingWith flings as o says: swipes of 50 ms whatever o.Duration, across
// half the screen unless o.Distance says otherwise.
func FlingWith(o SwipeOptions) Action {
	o.Duration = 50 * time.Millisecond
	if o.Distance == 0 {
		o.Distance = 0.5
	}
	return swipe("fling", o)
}

// SwipeWith swipes as o says.
func SwipeWith(o SwipeOptions) Action { return swipe("swipe", o) }

// swipe is a swipe or a fling (verb) as o says.
func swipe(verb string, o SwipeOptions) Action {
	if o.Distance == 0 {
		o.Distance = 0.6
	}
	if o.Duration == 0 {
		o.Duration = 300 * time.Millisecond
	}
	if o.Count == 0 {
		o.Count = 1
	}
	if o.Pause == 0 {
		o.Pause = 200 * time.Millisecond
	}
	name := fmt.Sprintf("%s %s ×%d", verb, o.Direction, o.Count)
	return action{name, func(ctx context.Context, d *Driver) error {
		if o.Distance <= 0 || o.Distance > 0.9 || o.Count < 0 || o.Duration < 0 {
			return fmt.Errorf("scenario %s: distance %v must be in (0, 0.9], count and duration positive", name, o.Distance)
		}
		cx, cy := float64(d.w)/2, float64(d.h)/2
		dx, dy := 0.0, 0.0
		switch o.Direction {
		case Up:
			dy = -o.Distance * float64(d.h)
		case Down:
			dy = o.Distance * float64(d.h)
		case Left:
			dx = -o.Distance * float64(d.w)
		case Right:
			dx = o.Distance * float64(d.w)
		default:
			return fmt.Errorf("scenario %s: direction %q, want up, down, left or right", verb, o.Direction)
		}
		x0, y0, x1, y1 := cx-dx/2, cy-dy/2, cx+dx/2, cy+dy/2
		for i := range o.Count {
			err := d.do(ctx, name, func(g *guia2.Driver) error {
				ges := guia2.NewW3CGestures().PointerMoveTo(x0, y0).PointerDown().
					PointerMoveTo(x1, y1, float64(o.Duration.Milliseconds())).PointerUp()
				return g.PerformW3CActions(guia2.NewW3CAction(guia2.ATPointer, ges))
			})
			if err != nil {
				return fmt.Errorf("%w (swipe %d of %d)", err, i+1, o.Count)
			}
			if err := sleep(ctx, o.Pause); err != nil {
				return err
			}
		}
		return nil
	}}
}

// Key codes of the keys actions press.
const (
	KeyHome = 3
	KeyBack = 4
	KeyMenu = 82
)

// Back presses the back key.
func Back() Action { return Key(KeyBack) }

// Home presses the home key.
func Home() Action { return Key(KeyHome) }

// Key presses the key with an Android KeyEvent code.
func Key(code int) Action {
	name := "key " + strconv.Itoa(code)
	return action{name, func(ctx context.Context, d *Driver) error {
		return d.do(ctx, name, func(g *guia2.Driver) error { return g.PressKeyCode(guia2.KeyCode(code), guia2.KMEmpty) })
	}}
}

// Type enters text into the element sel selects.
func Type(sel Selector, text string) Action {
	name := "type into " + sel.String()
	return action{name, func(ctx context.Context, d *Driver) error {
		el, err := d.find(ctx, sel, 0)
		if err != nil {
			return err
		}
		return d.do(ctx, name, func(*guia2.Driver) error { return el.SendKeys(text) })
	}}
}

// WaitFor waits until an element sel selects is on the screen.
func WaitFor(sel Selector, timeout time.Duration) Action {
	return waiting{action{"wait for " + sel.String(), func(ctx context.Context, d *Driver) error {
		_, err := d.find(ctx, sel, timeout)
		if err != nil && errors.Is(err, ErrNotFound) {
			return fmt.Errorf("scenario wait: %w", err)
		}
		return err
	}}, max(timeout, 0)}
}

// MaxSleep is the longest Sleep. A longer one (a typo of minutes for
// milliseconds) fails its step at once rather than hold a test or a CI job
// for hours.
const MaxSleep = 10 * time.Minute

// Sleep waits d, measuring what the app does meanwhile. d is at most
// MaxSleep: a longer (or negative) one fails the step, quoting it. The
// sleep ends early, failing, when the step's context ends
// (Scenario.StepContext), and its deadline is d past the ActionTimeout.
func Sleep(d time.Duration) Action {
	return waiting{action{"sleep " + d.String(), func(ctx context.Context, _ *Driver) error {
		if d < 0 || d > MaxSleep {
			return fmt.Errorf("scenario sleep %v: want a duration from 0 to %v (scenario.MaxSleep)", d, MaxSleep)
		}
		return sleep(ctx, d)
	}}, min(max(d, 0), MaxSleep)}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
