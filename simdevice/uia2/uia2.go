// Package uia2 serves the subset of the Appium UiAutomator2 server's HTTP API
// that perfgate's UI steps use, over a simulated screen.
//
// A real phone runs the UiAutomator2 server APK on device port 6790 and tests
// reach it through adb forward; the simulated device answers the same JSON on
// an in-memory connection:
//
//	srv := uia2.NewServer(screen)
//	defer srv.Close()
//	conn, err := srv.Dial(ctx) // one HTTP/1.1 connection into the server
//
// Routes live under /wd/hub and answer {"sessionId":…,"value":…}; errors use the
// W3C WebDriver shape {"value":{"error":…,"message":…,"stacktrace":…}} with the
// status code the W3C specification assigns to each error. Like the real
// server it holds one session at a time: a new session ends the previous one.
//
// Every gesture reaches the Screen as a Tap or a Swipe. Swipes and drags of n
// steps last n × 5 ms, as UiDevice throttles each step; a press held without
// moving for 500 ms or more (long click, W3C pointer down–pause–up) is a Swipe
// that starts and ends at the same point. Typing into an element taps it first
// unless it is focused, and replacing its text sends KEYCODE_MOVE_END and one
// KEYCODE_DEL per character before the new text.
package uia2

import (
	"context"
	"errors"
	"image"
	"net"
	"net/http"
	"sync"
	"time"
)

// Element is one view on the simulated screen, with the attributes a
// uiautomator dump shows.
type Element struct {
	Class, Text, ResourceID, ContentDesc, Package string
	Bounds                                        image.Rectangle

	Clickable, Scrollable, Enabled, Focused, Selected, Checkable, Checked bool
}

// DeviceInfo is what /appium/device/info reports about the phone.
type DeviceInfo struct {
	AndroidID       string
	Manufacturer    string
	Model           string
	Brand           string
	APILevel        int    // Build.VERSION.SDK_INT, e.g. 34
	PlatformVersion string // Build.VERSION.RELEASE, e.g. "14"
	Density         int    // dots per inch, e.g. 420
	CarrierName     string
	Locale          string  // e.g. "en_US"
	TimeZone        string  // e.g. "UTC"
	StatusBar       int     // status bar height in pixels
	Battery         float64 // charge level in [0, 1]
	BatteryStatus   int     // BatteryManager.BATTERY_STATUS_*: 2 charging, 3 discharging, 5 full
}

// Screen is the simulated display and input the server drives. Implementations
// must be safe for concurrent use: the server calls them from HTTP handlers.
type Screen interface {
	// Size is the display size in pixels.
	Size() (width, height int)
	// Elements lists what is on screen now, in drawing order. The hierarchy
	// the server shows nests each element under the closest earlier element
	// whose bounds contain it, so list containers before their content.
	Elements() []Element
	// Tap is a short touch at (x, y).
	Tap(x, y int)
	// Swipe moves one finger from (x1, y1) to (x2, y2) over d; a long press
	// is a Swipe whose start and end are the same point.
	Swipe(x1, y1, x2, y2 int, d time.Duration)
	// Key presses an Android KEYCODE_* value (3 home, 4 back, 66 enter …).
	Key(code int)
	// Type enters text into the focused field.
	Type(text string)
	// Info describes the device.
	Info() DeviceInfo
}

// ErrClosed is returned by Dial after Close.
var ErrClosed = errors.New("uia2: server closed")

// Server is a UiAutomator2 HTTP server over a Screen. Create it with NewServer.
type Server struct {
	screen  Screen
	handler http.Handler
	ln      *pipeListener
	http    *http.Server
	serveWG sync.WaitGroup

	mu        sync.Mutex // guards sess, the state of the session it points to, and clipboard
	sess      *session
	clipboard string
}

// NewServer starts a server over s; it accepts connections from Dial until Close.
func NewServer(s Screen) *Server {
	srv := &Server{screen: s}
	srv.handler = srv.routes()
	srv.ln = newPipeListener()
	srv.http = &http.Server{Handler: srv.handler, ErrorLog: discardLogger()}
	srv.serveWG.Add(1)
	go func() {
		defer srv.serveWG.Done()
		_ = srv.http.Serve(srv.ln)
	}()
	return srv
}

// Dial opens an in-memory connection into the HTTP server, as adb forward to
// device port 6790 would on a phone.
func (s *Server) Dial(ctx context.Context) (net.Conn, error) {
	return s.ln.dial(ctx)
}

// Handler serves the UiAutomator2 routes, for use with net/http/httptest or a
// real listener.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops accepting connections and closes the open ones.
func (s *Server) Close() error {
	_ = s.ln.Close()
	err := s.http.Close()
	s.serveWG.Wait()
	return err
}
