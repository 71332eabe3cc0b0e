package uia2

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// nopScreen serves listScreen and ignores input.
type nopScreen struct {
	mu     sync.Mutex
	inputs int
}

func (*nopScreen) Size() (int, int)    { return 1080, 2400 }
func (*nopScreen) Elements() []Element { return listScreen() }
func (s *nopScreen) Tap(int, int)      { s.count() }
func (s *nopScreen) Swipe(_, _, _, _ int, d time.Duration) {
	if d < 0 || d > maxGesture {
		panic("swipe duration out of range")
	}
	s.count()
}
func (s *nopScreen) Key(int)        { s.count() }
func (s *nopScreen) Type(string)    { s.count() }
func (*nopScreen) Info() DeviceInfo { return DeviceInfo{Model: "sim", APILevel: 34, Density: 420} }
func (s *nopScreen) count()         { s.mu.Lock(); s.inputs++; s.mu.Unlock() }

// FuzzHandler sends arbitrary bodies to every route: the server must answer
// each with a JSON envelope and never panic.
func FuzzHandler(f *testing.F) {
	seeds := []struct{ method, path, body string }{
		{"POST", "/session", `{"capabilities":{}}`},
		{"POST", "/session/{sid}/element", `{"strategy":"-android uiautomator","selector":"new UiSelector().text(\"Wi-Fi\");"}`},
		{"POST", "/session/{sid}/elements", `{"strategy":"xpath","selector":"//*[@text='Done']","context":""}`},
		{"POST", "/session/{sid}/touch/perform", `{"startX":1,"startY":2,"endX":3,"endY":4,"steps":12}`},
		{"POST", "/session/{sid}/touch/drag", `{"startX":1,"startY":2,"endX":3,"endY":4,"steps":1e9}`},
		{"POST", "/session/{sid}/touch/longclick", `{"params":{"x":1,"y":2,"duration":1000}}`},
		{"POST", "/session/{sid}/touch/down", `{"params":{"x":1,"y":2}}`},
		{"POST", "/session/{sid}/touch/up", `{"params":{"x":1e300,"y":-1e300}}`},
		{"POST", "/session/{sid}/actions", `{"actions":[{"type":"pointer","id":"1","parameters":{"pointerType":"touch"},"actions":[{"type":"pointerMove","duration":0,"origin":"viewport","x":10,"y":20},{"type":"pointerDown","button":0},{"type":"pause","duration":1e300},{"type":"pointerMove","duration":500,"origin":"pointer","x":0,"y":300},{"type":"pointerUp","button":0}]}]}`},
		{"POST", "/session/{sid}/actions", `{"actions":[{"type":"key","id":"2","actions":[{"type":"keyDown","value":"a"},{"type":"keyUp","value":"a"}]}]}`},
		{"POST", "/session/{sid}/appium/device/press_keycode", `{"keycode":66,"flags":8}`},
		{"POST", "/session/{sid}/keys", `{"text":"hi","replace":true}`},
		{"POST", "/session/{sid}/appium/settings", `{"settings":{"waitForIdleTimeout":0}}`},
		{"POST", "/session/{sid}/alert/accept", `{"buttonLabel":null}`},
		{"POST", "/session/{sid}/rotation", `{"z":90}`},
		{"GET", "/session/{sid}/source", ``},
		{"GET", "/session/{sid}/element/x/attribute/text", ``},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.body)
	}
	srv := NewServer(&nopScreen{})
	f.Cleanup(func() { srv.Close() })
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, method, path, body string) {
		// Each input gets a fresh session so inputs do not depend on each other.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/wd/hub/session", strings.NewReader(`{"capabilities":{}}`)))
		var created struct{ SessionID string }
		if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || created.SessionID == "" {
			t.Fatalf("new session: %s", rec.Body)
		}
		path = strings.ReplaceAll(path, "{sid}", created.SessionID)
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \x00?#%") {
			return
		}
		req, err := http.NewRequest(method, "http://device/wd/hub"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var env map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatalf("%s %s %q: status %d, body %q is not JSON", method, path, body, rec.Code, rec.Body)
		}
		if _, ok := env["value"]; !ok {
			t.Fatalf("%s %s: envelope without value: %s", method, path, rec.Body)
		}
	})
}
