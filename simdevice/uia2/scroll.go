package uia2

import (
	"encoding/base64"
	"image"
)

// defaultMaxSwipes is UiScrollable's default limit on search swipes.
const defaultMaxSwipes = 30

// scrollSwipe is one search swipe: up by half the container, as
// UiScrollable.scrollForward does with its default steps.
const scrollSwipe = 55 * stepDuration

// scrollTo is the Appium ScrollTo handler (guia2's ScrollTo): swipe the
// scrollable container until an element the locator selects is on screen.
func (s *Server) scrollTo(c *call) (any, error) {
	var req struct {
		Params struct {
			Strategy  string `json:"strategy"`
			Selector  string `json:"selector"`
			MaxSwipes int    `json:"maxSwipes"`
		} `json:"params"`
		Origin map[string]string `json:"origin"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	p := req.Params
	if p.Strategy == "" || p.Selector == "" {
		return nil, newErr(errInvalidArgument, "'strategy' and 'selector' are mandatory for this command")
	}
	maxSwipes := p.MaxSwipes
	if maxSwipes <= 0 {
		maxSwipes = defaultMaxSwipes
	}
	maxSwipes = min(maxSwipes, 1000)
	var area image.Rectangle
	if id := req.Origin[webElementKey]; id != "" || req.Origin[legacyElementKey] != "" {
		if id == "" {
			id = req.Origin[legacyElementKey]
		}
		t, n, err := s.resolve(c.sess, id)
		if err != nil {
			return nil, err
		}
		area = t.nodes[n].el.Bounds
	}
	for swipes := 0; ; swipes++ {
		t := buildTree(s.screen.Elements())
		hits, err := locate(t, p.Strategy, p.Selector, 0)
		if err != nil {
			return nil, err
		}
		if len(hits) > 0 {
			return nil, nil
		}
		if swipes == maxSwipes {
			break
		}
		r := area
		if r.Empty() {
			r = firstScrollable(t)
		}
		if r.Empty() {
			return nil, newErr(errNoSuchElement, "nothing on screen scrolls, and no element matches strategy %q, selector %q", p.Strategy, p.Selector)
		}
		x, _ := center(r)
		s.screen.Swipe(x, r.Min.Y+r.Dy()*3/4, x, r.Min.Y+r.Dy()/4, scrollSwipe)
	}
	return nil, newErr(errNoSuchElement, "no element matches strategy %q, selector %q after %d swipes", p.Strategy, p.Selector, maxSwipes)
}

func firstScrollable(t *tree) image.Rectangle {
	for _, n := range t.nodes[1:] {
		if n.el.Scrollable {
			return n.el.Bounds
		}
	}
	return image.Rectangle{}
}

// Clipboard routes keep the text on the server: the simulated phone has one
// clipboard, shared by every session.
func (s *Server) getClipboard(c *call) (any, error) {
	var req struct {
		ContentType string `json:"contentType"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	if req.ContentType != "" && req.ContentType != "PLAINTEXT" {
		return nil, newErr(errInvalidArgument, "clipboard content type %q is not supported; use PLAINTEXT", req.ContentType)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return base64.StdEncoding.EncodeToString([]byte(s.clipboard)), nil
}

func (s *Server) setClipboard(c *call) (any, error) {
	var req struct {
		ContentType string `json:"contentType"`
		Content     string `json:"content"`
	}
	if err := decodeBody(c.w, c.r, &req); err != nil {
		return nil, err
	}
	if req.ContentType != "" && req.ContentType != "PLAINTEXT" {
		return nil, newErr(errInvalidArgument, "clipboard content type %q is not supported; use PLAINTEXT", req.ContentType)
	}
	text, err := base64.StdEncoding.DecodeString(req.Content)
	if err != nil {
		return nil, newErr(errInvalidArgument, "clipboard content %q is not base64: %v", truncate(req.Content, 100), err)
	}
	s.mu.Lock()
	s.clipboard = string(text)
	s.mu.Unlock()
	return nil, nil
}
