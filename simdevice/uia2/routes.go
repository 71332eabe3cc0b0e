package uia2

import (
	"net/http"
	"path"
	"strings"
)

// session is the single automation session the server holds, as the real
// UiAutomator2 server keeps one: creating a session ends the previous one.
type session struct {
	id       string
	caps     map[string]any
	settings map[string]any
	elems    map[string]Element // element id → the element as it was found
	ids      map[Element]string
	touch    touchState
}

// maxKnownElements bounds the element cache of a long session; when it is
// full the cache starts over and older ids become stale, as ids of views
// that left the screen do on a phone.
const maxKnownElements = 1 << 14

// call is one request as a handler sees it.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	sess *session // nil on routes outside a session
}

type handlerFunc func(s *Server, c *call) (any, error)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routeTable {
		method, p, _ := strings.Cut(rt.pattern, " ")
		inSess := strings.Contains(p, "{sid}")
		h := rt.h
		mux.HandleFunc(method+" /wd/hub"+p, func(w http.ResponseWriter, r *http.Request) {
			s.serve(w, r, inSess, h)
		})
	}
	return router{mux}
}

// routeTable lists the server's routes: "METHOD path" under /wd/hub, and
// the handler; a path with {sid} runs inside the session it names.
var routeTable = []struct {
	pattern string
	h       handlerFunc
}{
	{"GET /status", (*Server).status},
	{"POST /session", (*Server).newSession},
	{"GET /sessions", (*Server).listSessions},
	{"GET /session/{sid}", (*Server).sessionDetails},
	{"DELETE /session/{sid}", (*Server).deleteSession},

	{"GET /session/{sid}/window/{handle}/size", (*Server).windowSize},
	{"GET /session/{sid}/window/rect", (*Server).windowRect},
	{"GET /session/{sid}/source", (*Server).source},
	{"GET /session/{sid}/screenshot", (*Server).screenshot},
	{"GET /session/{sid}/orientation", (*Server).orientation},
	{"POST /session/{sid}/orientation", (*Server).setOrientation},
	{"GET /session/{sid}/rotation", (*Server).rotation},
	{"POST /session/{sid}/rotation", (*Server).setRotation},
	{"GET /session/{sid}/appium/device/info", (*Server).deviceInfo},
	{"GET /session/{sid}/appium/device/pixel_ratio", (*Server).pixelRatio},
	{"GET /session/{sid}/appium/device/system_bars", (*Server).systemBars},
	{"GET /session/{sid}/appium/device/battery_info", (*Server).batteryInfo},
	{"GET /session/{sid}/appium/settings", (*Server).getSettings},
	{"POST /session/{sid}/appium/settings", (*Server).updateSettings},

	{"POST /session/{sid}/element", (*Server).findElement},
	{"POST /session/{sid}/elements", (*Server).findElements},
	{"GET /session/{sid}/element/active", (*Server).activeElement},
	{"POST /session/{sid}/element/{id}/element", (*Server).findElementFrom},
	{"POST /session/{sid}/element/{id}/elements", (*Server).findElementsFrom},
	{"GET /session/{sid}/element/{id}/text", (*Server).elementText},
	{"GET /session/{sid}/element/{id}/name", (*Server).elementName},
	{"GET /session/{sid}/element/{id}/attribute/{name}", (*Server).elementAttribute},
	{"GET /session/{sid}/element/{id}/rect", (*Server).elementRect},
	{"GET /session/{sid}/element/{id}/location", (*Server).elementLocation},
	{"GET /session/{sid}/element/{id}/size", (*Server).elementSize},
	{"GET /session/{sid}/element/{id}/displayed", (*Server).elementDisplayed},
	{"GET /session/{sid}/element/{id}/enabled", (*Server).elementEnabled},
	{"GET /session/{sid}/element/{id}/selected", (*Server).elementSelected},
	{"GET /session/{sid}/element/{id}/screenshot", (*Server).elementScreenshot},
	{"POST /session/{sid}/element/{id}/click", (*Server).elementClick},
	{"POST /session/{sid}/element/{id}/clear", (*Server).elementClear},
	{"POST /session/{sid}/element/{id}/value", (*Server).elementValue},

	{"POST /session/{sid}/appium/tap", (*Server).tap},
	{"POST /session/{sid}/touch/click", (*Server).touchClick},
	{"POST /session/{sid}/touch/perform", (*Server).touchSwipe},
	{"POST /session/{sid}/touch/drag", (*Server).touchDrag},
	{"POST /session/{sid}/touch/longclick", (*Server).touchLongClick},
	{"POST /session/{sid}/touch/down", (*Server).touchDown},
	{"POST /session/{sid}/touch/move", (*Server).touchMove},
	{"POST /session/{sid}/touch/up", (*Server).touchUp},
	{"POST /session/{sid}/touch/scroll", (*Server).scrollTo},
	{"POST /session/{sid}/appium/device/get_clipboard", (*Server).getClipboard},
	{"POST /session/{sid}/appium/device/set_clipboard", (*Server).setClipboard},
	{"POST /session/{sid}/actions", (*Server).actions},
	{"DELETE /session/{sid}/actions", (*Server).releaseActions},
	{"POST /session/{sid}/appium/device/press_keycode", (*Server).pressKeyCode},
	{"POST /session/{sid}/appium/device/long_press_keycode", (*Server).longPressKeyCode},
	{"POST /session/{sid}/back", (*Server).back},
	{"POST /session/{sid}/keys", (*Server).keys},

	{"GET /session/{sid}/alert/text", (*Server).alertText},
	{"POST /session/{sid}/alert/accept", (*Server).alertAccept},
	{"POST /session/{sid}/alert/dismiss", (*Server).alertDismiss},
}

// router serves the routes of mux, with the Appium server's answers to a
// path or a method it does not know.
type router struct{ mux *http.ServeMux }

func (rt router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := rt.mux
	// Clients join path segments loosely ("/session/x//element"); the
	// Appium server's router tolerates that, so clean instead of redirecting.
	if p := path.Clean(r.URL.Path); p != r.URL.Path {
		r2 := *r
		u := *r.URL
		u.Path, u.RawPath = p, ""
		r2.URL = &u
		r = &r2
	}
	if _, pattern := mux.Handler(r); pattern != "" {
		mux.ServeHTTP(w, r)
		return
	}
	// No pattern: either the path is unknown or only the method is wrong.
	probe := &statusProbe{}
	h, _ := mux.Handler(r)
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		writeErr(w, "", newErr(errUnknownMethod, "the %s method is not supported for %s", r.Method, r.URL.Path))
		return
	}
	writeErr(w, "", newErr(errUnknownCommand, "the requested resource %s %s could not be found, or a request was received using an HTTP method that is not supported by the mapped resource", r.Method, r.URL.Path))
}

// statusProbe records the status ServeMux would answer with, without
// letting its plain-text body reach the client.
type statusProbe struct {
	status int
	header http.Header
}

func (p *statusProbe) Header() http.Header {
	if p.header == nil {
		p.header = http.Header{}
	}
	return p.header
}
func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *statusProbe) WriteHeader(code int)        { p.status = code }

func (s *Server) serve(w http.ResponseWriter, r *http.Request, inSess bool, h handlerFunc) {
	c := &call{w: w, r: r}
	sid := ""
	if inSess {
		sid = r.PathValue("sid")
		s.mu.Lock()
		sess := s.sess
		s.mu.Unlock()
		if sess == nil || sess.id != sid {
			writeErr(w, sid, newErr(errInvalidSessionID, "a session with id %q is either terminated or not started", sid))
			return
		}
		c.sess = sess
	}
	v, err := h(s, c)
	if err != nil {
		writeErr(w, sid, err)
		return
	}
	if sid == "" {
		if sm, ok := v.(sessionReply); ok {
			sid = sm.SessionID
		}
	}
	writeJSON(w, http.StatusOK, sid, v)
}
