package uia2_test

import (
	"context"
	"fmt"
	"image"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/electricbubble/guia2"

	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/simdevice/uia2"
)

// fakeScreen is a data-literal Screen that records what the server does to it.
type fakeScreen struct {
	W, H  int
	Elems []uia2.Element
	Dev   uia2.DeviceInfo

	// OnSwipe, when set, changes the screen after each swipe (a list scrolls).
	OnSwipe func(f *fakeScreen)

	mu     sync.Mutex
	events []string
}

func (f *fakeScreen) Size() (int, int) { return f.W, f.H }
func (f *fakeScreen) Elements() []uia2.Element {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]uia2.Element(nil), f.Elems...)
}
func (f *fakeScreen) Info() uia2.DeviceInfo { return f.Dev }
func (f *fakeScreen) Tap(x, y int)          { f.record("tap %d,%d", x, y) }
func (f *fakeScreen) Swipe(x1, y1, x2, y2 int, d time.Duration) {
	f.record("swipe %d,%d->%d,%d %v", x1, y1, x2, y2, d)
	if f.OnSwipe != nil {
		f.OnSwipe(f)
	}
}
func (f *fakeScreen) Key(code int)     { f.record("key %d", code) }
func (f *fakeScreen) Type(text string) { f.record("type %q", text) }

func (f *fakeScreen) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, fmt.Sprintf(format, args...))
}

// take returns the recorded events and forgets them.
func (f *fakeScreen) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := f.events
	f.events = nil
	return ev
}

func (f *fakeScreen) setElems(e []uia2.Element) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Elems = e
}

const pkg = "com.example.shop"

func rect(x1, y1, x2, y2 int) image.Rectangle { return image.Rect(x1, y1, x2, y2) }

// shopScreen is a shopping app's home screen on a 1080×2400, 420 dpi phone.
func shopScreen() *fakeScreen {
	return &fakeScreen{
		W: 1080, H: 2400,
		Dev: uia2.DeviceInfo{
			AndroidID: "5a3f9c2e1b7d4e60", Manufacturer: "Google", Model: "Pixel 7", Brand: "google",
			APILevel: 34, PlatformVersion: "14", Density: 420, Locale: "en_US", TimeZone: "UTC",
			StatusBar: 118, Battery: 0.8, BatteryStatus: 3,
		},
		Elems: []uia2.Element{
			{Class: "android.widget.FrameLayout", Package: pkg, Bounds: rect(0, 0, 1080, 2400), Enabled: true},
			{Class: "android.widget.TextView", Package: pkg, ResourceID: pkg + ":id/title", Text: "Shop", Bounds: rect(48, 150, 600, 250), Enabled: true},
			{Class: "android.widget.EditText", Package: pkg, ResourceID: pkg + ":id/search", Text: "", Bounds: rect(48, 300, 1032, 420), Clickable: true, Enabled: true},
			{Class: "androidx.recyclerview.widget.RecyclerView", Package: pkg, ResourceID: pkg + ":id/list", Bounds: rect(0, 450, 1080, 2200), Scrollable: true, Enabled: true},
			{Class: "android.widget.LinearLayout", Package: pkg, ResourceID: pkg + ":id/item", Bounds: rect(0, 450, 1080, 650), Clickable: true, Enabled: true},
			{Class: "android.widget.TextView", Package: pkg, ResourceID: pkg + ":id/name", Text: "Red shoes", Bounds: rect(48, 480, 700, 560), Enabled: true},
			{Class: "android.widget.LinearLayout", Package: pkg, ResourceID: pkg + ":id/item", Bounds: rect(0, 650, 1080, 850), Clickable: true, Enabled: true},
			{Class: "android.widget.TextView", Package: pkg, ResourceID: pkg + ":id/name", Text: "Blue shoes", Bounds: rect(48, 680, 700, 760), Enabled: true},
			{Class: "android.widget.CheckBox", Package: pkg, ResourceID: pkg + ":id/fav", Bounds: rect(900, 680, 1000, 780), Clickable: true, Checkable: true, Checked: true, Enabled: true},
			{Class: "android.widget.ImageButton", Package: pkg, ResourceID: pkg + ":id/cart", ContentDesc: "Cart", Bounds: rect(900, 2250, 1040, 2390), Clickable: true, Enabled: true},
		},
	}
}

// hosts routes the test HTTP client to servers by host name, so every test
// has its own server behind guia2's single shared client.
var (
	hostsMu  sync.Mutex
	hosts    = map[string]*uia2.Server{}
	hostSeq  atomic.Int64
	dialer   = &http.Transport{DialContext: dialHost}
	testHTTP = &http.Client{Transport: dialer, Timeout: 30 * time.Second}
)

func dialHost(ctx context.Context, _, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	hostsMu.Lock()
	srv := hosts[host]
	hostsMu.Unlock()
	if srv == nil {
		return nil, fmt.Errorf("no test server at %q", host)
	}
	return srv.Dial(ctx)
}

func TestMain(m *testing.M) {
	testenv.SkipRaceExitSleep()
	// guia2 v0.1.0 talks through its package-level HTTPClient only, so the
	// tests give it a client whose transport dials the in-memory servers.
	guia2.HTTPClient = testHTTP
	m.Run()
}

// serve starts a server over screen and returns the URL prefix guia2 takes.
func serve(t testing.TB, screen uia2.Screen) string {
	t.Helper()
	srv := uia2.NewServer(screen)
	host := fmt.Sprintf("uia2-%d.test", hostSeq.Add(1))
	hostsMu.Lock()
	hosts[host] = srv
	hostsMu.Unlock()
	t.Cleanup(func() {
		hostsMu.Lock()
		delete(hosts, host)
		hostsMu.Unlock()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		dialer.CloseIdleConnections()
	})
	return "http://" + host + "/wd/hub"
}

// driver starts a server over screen and opens a guia2 session on it.
func driver(t testing.TB, screen uia2.Screen) *guia2.Driver {
	t.Helper()
	d, err := guia2.NewDriver(nil, serve(t, screen))
	if err != nil {
		t.Fatalf("guia2.NewDriver: %v", err)
	}
	return d
}

func wantEvents(t *testing.T, f *fakeScreen, want ...string) {
	t.Helper()
	got := f.take()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen events:\n got %q\nwant %q", got, want)
	}
}
