package uia2

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"
)

// UiDevice.swipe and drag inject one move event per step, each throttled to
// 5 ms, so a gesture of n steps lasts n × 5 ms.
const stepDuration = 5 * time.Millisecond

// longPressTimeout is ViewConfiguration's: a press held this long without
// moving is a long press rather than a tap.
const longPressTimeout = 500 * time.Millisecond

// maxGesture bounds how long one gesture may last.
const maxGesture = time.Hour

// coord rounds a JSON coordinate to a pixel, clamping absurd values so the
// conversion to int is defined.
func coord(f float64) int {
	const limit = 1 << 30
	switch {
	case math.IsNaN(f):
		return 0
	case f > limit:
		return limit
	case f < -limit:
		return -limit
	}
	return int(math.Round(f))
}

func msDuration(ms float64) (time.Duration, error) {
	if math.IsNaN(ms) || ms < 0 {
		return 0, newErr(errInvalidArgument, "duration %v ms must not be negative", ms)
	}
	d := time.Duration(math.Min(ms, float64(maxGesture/time.Millisecond)) * float64(time.Millisecond))
	return d, nil
}

func stepsDuration(steps int) time.Duration {
	// InteractionController turns 0 steps into 1 to avoid dividing by zero.
	if steps < 1 {
		steps = 1
	}
	if steps > int(maxGesture/stepDuration) {
		steps = int(maxGesture / stepDuration)
	}
	return time.Duration(steps) * stepDuration
}

// point is a JSON x/y pair.
type point struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}

func (p point) get(what string) (int, int, error) {
	if p.X == nil || p.Y == nil {
		return 0, 0, newErr(errInvalidArgument, "%s needs both x and y", what)
	}
	return coord(*p.X), coord(*p.Y), nil
}

// elementCenter resolves an element id to its centre.
func (s *Server) elementCenter(sess *session, id string) (int, int, error) {
	t, n, err := s.resolve(sess, id)
	if err != nil {
		return 0, 0, err
	}
	x, y := center(t.nodes[n].el.Bounds)
	return x, y, nil
}

func (s *Server) tap(c *call) (any, error) {
	var req struct {
		point
		Element string `json:"element"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	if req.Element != "" {
		t, n, err := s.resolve(c.sess, req.Element)
		if err != nil {
			return nil, err
		}
		b := t.nodes[n].el.Bounds
		x, y := center(b)
		if req.X != nil && req.Y != nil {
			// Offsets count from the element's top-left corner.
			x, y = b.Min.X+coord(*req.X), b.Min.Y+coord(*req.Y)
		}
		s.screen.Tap(x, y)
		return nil, nil
	}
	x, y, err := req.get("tap")
	if err != nil {
		return nil, err
	}
	s.screen.Tap(x, y)
	return nil, nil
}

// touchParams is the {"params":{…}} body of the /touch/* routes; some
// clients send the fields at the top level instead.
type touchParams struct {
	point
	Element  string   `json:"element"`
	Duration *float64 `json:"duration"`
}

func decodeTouch(c *call) (touchParams, error) {
	var req struct {
		touchParams
		Params *touchParams `json:"params"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return touchParams{}, err
	}
	if req.Params != nil {
		return *req.Params, nil
	}
	return req.touchParams, nil
}

// target is the point a /touch/* request names: an element's centre or x/y.
func (s *Server) target(c *call, p touchParams, what string) (int, int, error) {
	if p.Element != "" {
		return s.elementCenter(c.sess, p.Element)
	}
	return p.get(what)
}

func (s *Server) touchClick(c *call) (any, error) {
	p, err := decodeTouch(c)
	if err != nil {
		return nil, err
	}
	x, y, err := s.target(c, p, "touch click")
	if err != nil {
		return nil, err
	}
	s.screen.Tap(x, y)
	return nil, nil
}

// touchLongClick holds a finger still: to the screen that is a swipe whose
// start and end are the same point.
func (s *Server) touchLongClick(c *call) (any, error) {
	p, err := decodeTouch(c)
	if err != nil {
		return nil, err
	}
	x, y, err := s.target(c, p, "long click")
	if err != nil {
		return nil, err
	}
	d := time.Second
	if p.Duration != nil {
		if d, err = msDuration(*p.Duration); err != nil {
			return nil, err
		}
	}
	s.screen.Swipe(x, y, x, y, d)
	return nil, nil
}

type swipeRequest struct {
	StartX    *float64 `json:"startX"`
	StartY    *float64 `json:"startY"`
	EndX      *float64 `json:"endX"`
	EndY      *float64 `json:"endY"`
	Steps     int      `json:"steps"`
	ElementID string   `json:"elementId"`
	DestElID  string   `json:"destElId"`
}

func (r *swipeRequest) start() point { return point{r.StartX, r.StartY} }
func (r *swipeRequest) end() point   { return point{r.EndX, r.EndY} }

// touchSwipe is guia2's Swipe (the Appium Swipe handler): start and end are
// screen pixels, or offsets into the element when elementId is given.
func (s *Server) touchSwipe(c *call) (any, error) {
	var req swipeRequest
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	x1, y1, err := req.start().get("swipe start")
	if err != nil {
		return nil, err
	}
	x2, y2, err := req.end().get("swipe end")
	if err != nil {
		return nil, err
	}
	if req.ElementID != "" {
		t, n, err := s.resolve(c.sess, req.ElementID)
		if err != nil {
			return nil, err
		}
		b := t.nodes[n].el.Bounds
		x1, y1, x2, y2 = b.Min.X+x1, b.Min.Y+y1, b.Min.X+x2, b.Min.Y+y2
	}
	s.screen.Swipe(x1, y1, x2, y2, stepsDuration(req.Steps))
	return nil, nil
}

// touchDrag is the Appium Drag handler: from a point or an element's centre
// to a point or another element's centre.
func (s *Server) touchDrag(c *call) (any, error) {
	var req swipeRequest
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	var x1, y1, x2, y2 int
	var err error
	if req.ElementID != "" {
		x1, y1, err = s.elementCenter(c.sess, req.ElementID)
	} else {
		x1, y1, err = req.start().get("drag start")
	}
	if err != nil {
		return nil, err
	}
	if req.DestElID != "" {
		x2, y2, err = s.elementCenter(c.sess, req.DestElID)
	} else {
		x2, y2, err = req.end().get("drag end")
	}
	if err != nil {
		return nil, err
	}
	s.screen.Swipe(x1, y1, x2, y2, stepsDuration(req.Steps))
	return nil, nil
}

// touchState follows a finger through /touch/down, /touch/move and /touch/up.
type touchState struct {
	down       bool
	start, end [2]int
	at         time.Time
}

func (s *Server) touchDown(c *call) (any, error) {
	p, err := decodeTouch(c)
	if err != nil {
		return nil, err
	}
	x, y, err := s.target(c, p, "touch down")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	c.sess.touch = touchState{down: true, start: [2]int{x, y}, end: [2]int{x, y}, at: time.Now()}
	s.mu.Unlock()
	return nil, nil
}

func (s *Server) touchMove(c *call) (any, error) {
	p, err := decodeTouch(c)
	if err != nil {
		return nil, err
	}
	x, y, err := s.target(c, p, "touch move")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !c.sess.touch.down {
		return nil, newErr(errInvalidArgument, "touch move without a touch down")
	}
	c.sess.touch.end = [2]int{x, y}
	return nil, nil
}

func (s *Server) touchUp(c *call) (any, error) {
	p, err := decodeTouch(c)
	if err != nil {
		return nil, err
	}
	x, y, err := s.target(c, p, "touch up")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ts := c.sess.touch
	c.sess.touch = touchState{}
	s.mu.Unlock()
	if !ts.down {
		return nil, newErr(errInvalidArgument, "touch up without a touch down")
	}
	s.gesture(ts.start, [2]int{x, y}, time.Since(ts.at))
	return nil, nil
}

// gesture hands a finished press to the screen: a short press that did not
// move is a tap, anything else a swipe (a long press being a swipe that
// stays put).
func (s *Server) gesture(from, to [2]int, held time.Duration) {
	held = min(max(held, 0), maxGesture)
	if from == to && held < longPressTimeout {
		s.screen.Tap(from[0], from[1])
		return
	}
	s.screen.Swipe(from[0], from[1], to[0], to[1], held)
}

// W3C actions (POST /session/:id/actions): input sources with their action
// lists, https://www.w3.org/TR/webdriver/#actions.
type w3cSource struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	Parameters struct {
		PointerType string `json:"pointerType"`
	} `json:"parameters"`
	Actions []w3cAction `json:"actions"`
}

type w3cAction struct {
	Type     string          `json:"type"`
	Duration *float64        `json:"duration"`
	X        float64         `json:"x"`
	Y        float64         `json:"y"`
	Origin   json.RawMessage `json:"origin"`
	Button   int             `json:"button"`
	Value    string          `json:"value"`
}

func (s *Server) actions(c *call) (any, error) {
	var req struct {
		Actions []w3cSource `json:"actions"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	if req.Actions == nil {
		return nil, newErr(errInvalidArgument, "'actions' are mandatory for this command")
	}
	// Validate everything first so a bad chain performs nothing.
	for _, src := range req.Actions {
		if err := validateSource(&src); err != nil {
			return nil, err
		}
	}
	// The screen takes one finger at a time, so sources run one after another.
	for _, src := range req.Actions {
		var err error
		switch src.Type {
		case "pointer":
			err = s.runPointer(c, &src)
		case "key":
			s.runKeys(&src)
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (s *Server) releaseActions(_ *call) (any, error) { return nil, nil }

func validateSource(src *w3cSource) error {
	allowed := map[string][]string{
		"pointer": {"pointerMove", "pointerDown", "pointerUp", "pointerCancel", "pause"},
		"key":     {"keyDown", "keyUp", "pause"},
		"none":    {"pause"},
	}
	types, ok := allowed[src.Type]
	if !ok {
		return newErr(errInvalidArgument, "input source %q has unknown type %q; want pointer, key or none", src.ID, src.Type)
	}
	for i, a := range src.Actions {
		known := false
		for _, t := range types {
			known = known || t == a.Type
		}
		if !known {
			return newErr(errInvalidArgument, "input source %q action %d: %q is not a %s action", src.ID, i, a.Type, src.Type)
		}
		if a.Duration != nil {
			if _, err := msDuration(*a.Duration); err != nil {
				return newErr(errInvalidArgument, "input source %q action %d: %v", src.ID, i, err)
			}
		}
	}
	return nil
}

func (s *Server) runPointer(c *call, src *w3cSource) error {
	var (
		pos, downAt [2]int
		down        bool
		now, downT  time.Duration
	)
	for i, a := range src.Actions {
		var d time.Duration
		if a.Duration != nil {
			d, _ = msDuration(*a.Duration)
		}
		switch a.Type {
		case "pause":
			now += d
		case "pointerMove":
			x, y := coord(a.X), coord(a.Y)
			origin, err := s.moveOrigin(c, a.Origin, pos)
			if err != nil {
				// Keep the error's code (no such element, stale …) and add where it happened.
				we := &wdError{code: errInvalidArgument, msg: err.Error()}
				errors.As(err, &we)
				return newErr(we.code, "input source %q action %d: %s", src.ID, i, we.msg)
			}
			pos = [2]int{origin[0] + x, origin[1] + y}
			now += d
		case "pointerDown":
			down, downAt, downT = true, pos, now
		case "pointerUp":
			if down {
				s.gesture(downAt, pos, now-downT)
				down = false
			}
		case "pointerCancel":
			down = false
		}
		if now > maxGesture {
			now = maxGesture
		}
	}
	// A chain that ends with the finger down lifts it where it stopped.
	if down {
		s.gesture(downAt, pos, now-downT)
	}
	return nil
}

// moveOrigin resolves a pointerMove origin: "viewport" (or none) is the
// screen's corner, "pointer" the current position, and an element its
// centre, as the W3C specification defines.
func (s *Server) moveOrigin(c *call, raw json.RawMessage, pos [2]int) ([2]int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return [2]int{}, nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		var ref map[string]string
		if err := json.Unmarshal(raw, &ref); err != nil {
			return [2]int{}, newErr(errInvalidArgument, "origin %s is neither a string nor an element reference", truncate(string(raw), 100))
		}
		if name = ref[webElementKey]; name == "" {
			name = ref[legacyElementKey]
		}
		if name == "" {
			return [2]int{}, newErr(errInvalidArgument, "origin %s is not an element reference", truncate(string(raw), 100))
		}
	}
	switch strings.ToLower(name) {
	case "viewport", "":
		return [2]int{}, nil
	case "pointer":
		return pos, nil
	}
	x, y, err := s.elementCenter(c.sess, name)
	return [2]int{x, y}, err
}

func (s *Server) runKeys(src *w3cSource) {
	var text strings.Builder
	for _, a := range src.Actions {
		if a.Type == "keyDown" {
			text.WriteString(a.Value)
		}
	}
	if text.Len() > 0 {
		s.typeKeys(text.String())
	}
}

type keyCodeRequest struct {
	KeyCode   *int `json:"keycode"`
	MetaState int  `json:"metastate"`
	Flags     int  `json:"flags"`
}

func (s *Server) keyCode(c *call) (int, error) {
	var req keyCodeRequest
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return 0, err
	}
	if req.KeyCode == nil {
		return 0, newErr(errInvalidArgument, "'keycode' is mandatory for this command")
	}
	// KEYCODE_* values run from 0 (UNKNOWN) to a few hundred.
	if *req.KeyCode < 0 || *req.KeyCode > 1000 {
		return 0, newErr(errInvalidArgument, "keycode %d is not an Android key code", *req.KeyCode)
	}
	return *req.KeyCode, nil
}

func (s *Server) pressKeyCode(c *call) (any, error) {
	code, err := s.keyCode(c)
	if err != nil {
		return nil, err
	}
	s.screen.Key(code)
	return nil, nil
}

// longPressKeyCode presses the key once: the screen has no notion of a held key.
func (s *Server) longPressKeyCode(c *call) (any, error) {
	return s.pressKeyCode(c)
}

func (s *Server) back(_ *call) (any, error) {
	s.screen.Key(keyBack)
	return nil, nil
}
