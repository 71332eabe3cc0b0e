package uia2

import (
	"strings"
)

// Locator strategies the find routes accept, as guia2's BySelector names them.
const (
	byID            = "id"
	byAccessibility = "accessibility id"
	byClassName     = "class name"
	byUiAutomator   = "-android uiautomator"
	byXPath         = "xpath"
)

type findRequest struct {
	Strategy string `json:"strategy"`
	Selector string `json:"selector"`
	Context  string `json:"context"`
	// W3C clients name the fields using/value.
	Using string `json:"using"`
	Value string `json:"value"`
}

// locate runs a locator over the current screen and returns the matching
// nodes in document order; context, when > 0, limits the search to that
// node's descendants.
func locate(t *tree, strategy, selector string, context int) ([]int, error) {
	scope := t.descendants(0)
	if context > 0 {
		scope = t.descendants(context)
	}
	filter := func(keep func(e *Element) bool) []int {
		var out []int
		for _, n := range scope {
			if keep(&t.nodes[n].el) {
				out = append(out, n)
			}
		}
		return out
	}
	switch strategy {
	case byID:
		// A bare id means one in the app's own package, as on a phone.
		return filter(func(e *Element) bool {
			return e.ResourceID == selector || strings.HasSuffix(e.ResourceID, ":id/"+selector)
		}), nil
	case byAccessibility:
		return filter(func(e *Element) bool { return e.ContentDesc == selector }), nil
	case byClassName:
		return filter(func(e *Element) bool { return e.Class == selector }), nil
	case byUiAutomator:
		sels, err := parseUiSelectors(selector)
		if err != nil {
			return nil, newErr(errInvalidSelector, "%v", err)
		}
		var out []int
		for _, sel := range sels {
			out = append(out, sel.find(t, scope)...)
		}
		return sortUnique(out), nil
	case byXPath:
		x, err := parseXPath(selector)
		if err != nil {
			return nil, newErr(errInvalidSelector, "%v", err)
		}
		return x.find(t, context), nil
	}
	return nil, newErr(errInvalidSelector, "locator strategy %q is not supported; use one of %q, %q, %q, %q, %q",
		strategy, byID, byAccessibility, byClassName, byUiAutomator, byXPath)
}

// remember returns the id of element e, registering it on first sight.
func (s *Server) remember(sess *session, e Element) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := sess.ids[e]; ok {
		return id
	}
	if len(sess.elems) >= maxKnownElements {
		clear(sess.elems)
		clear(sess.ids)
	}
	id := newID()
	sess.ids[e] = id
	sess.elems[id] = e
	return id
}

// resolve finds the element that id refers to on the current screen. A view
// found earlier matches when it is still there unchanged, or, for views with
// a resource id, when only its text or state changed (typing into a field
// must not invalidate it).
func (s *Server) resolve(sess *session, id string) (*tree, int, error) {
	s.mu.Lock()
	want, ok := sess.elems[id]
	s.mu.Unlock()
	if !ok {
		return nil, 0, newErr(errNoSuchElement, "the element identified by %q is not present in the cache; find it first", id)
	}
	t := buildTree(s.screen.Elements())
	loose := 0
	for n := 1; n < len(t.nodes); n++ {
		e := &t.nodes[n].el
		if *e == want {
			return t, n, nil
		}
		if loose == 0 && want.ResourceID != "" && e.ResourceID == want.ResourceID &&
			e.Class == want.Class && e.Package == want.Package && e.Bounds == want.Bounds {
			loose = n
		}
	}
	if loose > 0 {
		return t, loose, nil
	}
	return nil, 0, newErr(errStaleElement, "the element %q (%s %q) is no longer on screen", id, want.Class, want.ResourceID+want.Text)
}

func (s *Server) find(c *call, context string, many bool) (any, error) {
	var req findRequest
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	if req.Strategy == "" {
		req.Strategy, req.Selector = req.Using, req.Value
	}
	if context == "" {
		context = req.Context
	}
	var t *tree
	ctx := 0
	if context != "" {
		var err error
		if t, ctx, err = s.resolve(c.sess, context); err != nil {
			return nil, err
		}
	} else {
		t = buildTree(s.screen.Elements())
	}
	hits, err := locate(t, req.Strategy, req.Selector, ctx)
	if err != nil {
		return nil, err
	}
	if many {
		refs := make([]map[string]string, 0, len(hits))
		for _, n := range hits {
			refs = append(refs, elementRef(s.remember(c.sess, t.nodes[n].el)))
		}
		return refs, nil
	}
	if len(hits) == 0 {
		return nil, newErr(errNoSuchElement, "an element could not be located on the page using the given search parameters (strategy %q, selector %q)", req.Strategy, req.Selector)
	}
	return elementRef(s.remember(c.sess, t.nodes[hits[0]].el)), nil
}

func (s *Server) findElement(c *call) (any, error)  { return s.find(c, "", false) }
func (s *Server) findElements(c *call) (any, error) { return s.find(c, "", true) }
func (s *Server) findElementFrom(c *call) (any, error) {
	return s.find(c, c.r.PathValue("id"), false)
}
func (s *Server) findElementsFrom(c *call) (any, error) {
	return s.find(c, c.r.PathValue("id"), true)
}

func (s *Server) activeElement(c *call) (any, error) {
	for _, e := range s.screen.Elements() {
		if e.Focused {
			return elementRef(s.remember(c.sess, e)), nil
		}
	}
	return nil, newErr(errNoSuchElement, "no element on screen has the input focus")
}

// withElement resolves the {id} path element and passes it to f.
func (s *Server) withElement(c *call, f func(t *tree, n int, e *Element) (any, error)) (any, error) {
	t, n, err := s.resolve(c.sess, c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return f(t, n, &t.nodes[n].el)
}

func (s *Server) elementText(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) { return e.Text, nil })
}

func (s *Server) elementName(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) { return e.ContentDesc, nil })
}

func (s *Server) elementAttribute(c *call) (any, error) {
	name := c.r.PathValue("name")
	return s.withElement(c, func(t *tree, n int, _ *Element) (any, error) {
		v, ok := t.attr(n, name)
		if !ok {
			return nil, newErr(errInvalidArgument, "%q is not a known attribute of an element", name)
		}
		return v, nil
	})
}

func (s *Server) elementRect(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) {
		b := e.Bounds
		return map[string]int{"x": b.Min.X, "y": b.Min.Y, "width": b.Dx(), "height": b.Dy()}, nil
	})
}

func (s *Server) elementLocation(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) {
		return map[string]int{"x": e.Bounds.Min.X, "y": e.Bounds.Min.Y}, nil
	})
}

func (s *Server) elementSize(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) {
		return map[string]int{"width": e.Bounds.Dx(), "height": e.Bounds.Dy()}, nil
	})
}

func (s *Server) elementDisplayed(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) { return true, nil })
}

func (s *Server) elementEnabled(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) { return e.Enabled, nil })
}

func (s *Server) elementSelected(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) { return e.Selected, nil })
}

func (s *Server) elementClick(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) {
		s.screen.Tap(center(e.Bounds))
		return nil, nil
	})
}

// Android KEYCODE_* values the server sends itself.
const (
	keyBack    = 4
	keyEnter   = 66
	keyDel     = 67
	keyMoveEnd = 123
)

// clearText empties a focused field the way a user would: move to the end,
// then delete every character.
func (s *Server) clearText(e *Element) {
	if e.Text == "" {
		return
	}
	s.screen.Key(keyMoveEnd)
	for range []rune(e.Text) {
		s.screen.Key(keyDel)
	}
}

// focus taps e unless it already holds the input focus: the simulated screen
// types into the focused field only.
func (s *Server) focus(e *Element) {
	if !e.Focused {
		s.screen.Tap(center(e.Bounds))
	}
}

func (s *Server) elementClear(c *call) (any, error) {
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) {
		s.focus(e)
		s.clearText(e)
		return nil, nil
	})
}

// keysRequest is the body of /keys and /element/:id/value: Appium's
// {text, replace} or the W3C {value: [chars]}.
type keysRequest struct {
	Text    *string  `json:"text"`
	Value   []string `json:"value"`
	Replace *bool    `json:"replace"`
}

func (k *keysRequest) text() (string, error) {
	if k.Text != nil {
		return *k.Text, nil
	}
	if k.Value != nil {
		return strings.Join(k.Value, ""), nil
	}
	return "", newErr(errInvalidArgument, "'text' is mandatory for this command")
}

func (s *Server) elementValue(c *call) (any, error) {
	var req keysRequest
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	text, err := req.text()
	if err != nil {
		return nil, err
	}
	return s.withElement(c, func(_ *tree, _ int, e *Element) (any, error) {
		s.focus(e)
		// UiObject2.setText replaces the text unless told to append.
		if req.Replace == nil || *req.Replace {
			s.clearText(e)
		}
		s.typeKeys(text)
		return nil, nil
	})
}

func (s *Server) keys(c *call) (any, error) {
	var req keysRequest
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	text, err := req.text()
	if err != nil {
		return nil, err
	}
	if req.Replace != nil && *req.Replace {
		for _, e := range s.screen.Elements() {
			if e.Focused {
				s.clearText(&e)
				break
			}
		}
	}
	s.typeKeys(text)
	return nil, nil
}

// webDriverKeys maps the W3C WebDriver special keys (Private Use Area code
// points) to Android key codes; other characters are typed as text.
var webDriverKeys = map[rune]int{
	'\uE003': keyDel,   // Backspace
	'\uE006': keyEnter, // Return
	'\uE007': keyEnter, // Enter
	'\uE004': 61,       // Tab
	'\uE00C': 111,      // Escape
	'\uE012': 21,       // Left
	'\uE013': 19,       // Up
	'\uE014': 22,       // Right
	'\uE015': 20,       // Down
	'\uE017': 112,      // Delete
	'\uE00D': 62,       // Space
}

// typeKeys types text, turning WebDriver special keys into key presses.
func (s *Server) typeKeys(text string) {
	start := 0
	for i, r := range text {
		code, ok := webDriverKeys[r]
		if !ok {
			continue
		}
		if start < i {
			s.screen.Type(text[start:i])
		}
		s.screen.Key(code)
		start = i + len(string(r))
	}
	if start < len(text) {
		s.screen.Type(text[start:])
	}
}
