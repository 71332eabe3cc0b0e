package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/electricbubble/guia2"

	"github.com/perfgate/perfgate/adbx"
)

// ServerPort is the device port the uiautomator2 server listens on.
const ServerPort = 6790

// ErrServerNotRunning means nothing answers on the device's uiautomator2
// port; the error says how to install and start the server.
var ErrServerNotRunning = errors.New("uiautomator2 server not running")

// httpClient is the client every guia2 request of this package uses:
// guia2 v0.1.0 sends through its package variable HTTPClient, which is
// http.DefaultClient unless replaced, and rewrites that client's transport
// when given its "forward-to" host form. This package replaces it once with
// a client of its own and only ever gives guia2 plain URLs of forwarded
// ports, so guia2 never touches http.DefaultClient and the client is never
// mutated. Its transport sends each request through the transport of the
// Driver whose forward the URL names, which dials as the Driver's device
// does (adbx.Device.Dial): over TCP, or through an in-memory adb server's
// pipes.
var httpClient = &http.Client{Timeout: 60 * time.Second, Transport: forwards}

// forwards is httpClient's transport.
var forwards = &router{}

// router sends a request through the transport registered for its URL's
// "host:port".
type router struct{ m sync.Map } // "host:port" → *http.Transport

func (r *router) RoundTrip(req *http.Request) (*http.Response, error) {
	t, ok := r.m.Load(req.URL.Host)
	if !ok {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("no open driver forwards %s", req.URL.Host)
	}
	return t.(*http.Transport).RoundTrip(req)
}

// add gives hostPort a transport that dials through dev, and returns the
// function that removes it and closes its connections.
func (r *router) add(hostPort string, dev *adbx.Device) (remove func()) {
	t := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second, DialContext: dev.Dial}
	r.m.Store(hostPort, t)
	return func() {
		r.m.CompareAndDelete(hostPort, t)
		t.CloseIdleConnections()
	}
}

var setClient sync.Once

// deviceLocks serialises the drivers of one device: uiautomator2 runs one
// gesture at a time, and two goroutines interleaving finds and taps on one
// screen would measure nonsense.
var deviceLocks sync.Map // serial → *sync.Mutex

// Options set a Driver. The zero value waits up to 5 s for elements.
type Options struct {
	// WaitTimeout bounds how long finding an element waits for it to
	// appear; default 5 s.
	WaitTimeout time.Duration
}

// Driver is a uiautomator2 session on one device.
type Driver struct {
	dev    *adbx.Device
	port   int
	base   string
	unlist func() // removes the driver's transport from forwards
	drv    *guia2.Driver
	opts   Options
	lock   *sync.Mutex
	w, h   int
}

// Connect forwards a local port to the device's uiautomator2 server,
// checks that it answers, and opens a session. When nothing answers it
// returns an error wrapping ErrServerNotRunning that says which part of
// the server is missing and how to install and start it.
func Connect(ctx context.Context, dev *adbx.Device, opts Options) (*Driver, error) {
	if opts.WaitTimeout <= 0 {
		opts.WaitTimeout = 5 * time.Second
	}
	setClient.Do(func() { guia2.HTTPClient = httpClient })
	port, err := dev.Forward(ctx, ServerPort)
	if err != nil {
		return nil, fmt.Errorf("scenario connect: %w", err)
	}
	host := "127.0.0.1"
	if h, _, err := net.SplitHostPort(dev.Server()); err == nil && h != "" && h != "localhost" {
		host = h
	}
	hostPort := net.JoinHostPort(host, strconv.Itoa(port))
	d := &Driver{dev: dev, port: port, base: "http://" + hostPort + "/wd/hub", opts: opts, unlist: forwards.add(hostPort, dev)}
	if err := d.status(ctx); err != nil {
		d.unlist()
		dev.RemoveForward(context.Background(), port)
		return nil, fmt.Errorf("scenario connect: %w: %v\n%s", ErrServerNotRunning, err, installHint(ctx, dev))
	}
	l, _ := deviceLocks.LoadOrStore(dev.Serial(), &sync.Mutex{})
	d.lock = l.(*sync.Mutex)
	d.lock.Lock()
	defer d.lock.Unlock()
	drv, err := guia2.NewDriver(nil, d.base)
	if err != nil {
		d.unlist()
		dev.RemoveForward(context.Background(), port)
		return nil, fmt.Errorf("scenario connect: new uiautomator2 session: %w", err)
	}
	d.drv = drv
	size, err := drv.DeviceSize()
	if err != nil {
		d.closeLocked()
		return nil, fmt.Errorf("scenario connect: window size: %w", err)
	}
	d.w, d.h = size.Width, size.Height
	return d, nil
}

// status asks the server's /status, bounded by ctx and 5 s.
func (d *Driver) status(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/status", nil)
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"ready"`)) {
		return fmt.Errorf("GET /wd/hub/status: %s %.200s", resp.Status, b)
	}
	return nil
}

// installHint says what of the Appium UiAutomator2 server the device has
// and how to install and start it.
func installHint(ctx context.Context, dev *adbx.Device) string {
	have := ""
	if r, err := dev.Shell(ctx, "pm list packages io.appium.uiautomator2"); err == nil {
		have = string(r.Stdout)
	}
	var missing []string
	for _, p := range []string{"io.appium.uiautomator2.server", "io.appium.uiautomator2.server.test"} {
		if !strings.Contains(have, "package:"+p+"\n") && !strings.HasSuffix(strings.TrimSpace(have), "package:"+p) {
			missing = append(missing, p)
		}
	}
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, "The device lacks %s. Install the Appium UiAutomator2 server (https://github.com/appium/appium-uiautomator2-server/releases):\n", strings.Join(missing, " and "))
		b.WriteString("  adb install -r -g appium-uiautomator2-server-v<version>.apk\n")
		b.WriteString("  adb install -r -g appium-uiautomator2-server-debug-androidTest.apk\n")
		b.WriteString("then start it:\n")
	} else {
		b.WriteString("The Appium UiAutomator2 server is installed but not running. Start it:\n")
	}
	b.WriteString("  adb shell am instrument -w -e disableAnalytics true io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner &")
	return b.String()
}

// Close ends the session and removes the forward.
func (d *Driver) Close() error {
	d.lock.Lock()
	defer d.lock.Unlock()
	return d.closeLocked()
}

func (d *Driver) closeLocked() error {
	var err error
	if d.drv != nil {
		err = d.drv.Quit()
		d.drv = nil
	}
	d.unlist()
	return errors.Join(err, d.dev.RemoveForward(context.Background(), d.port))
}

// Device is the device the driver drives.
func (d *Driver) Device() *adbx.Device { return d.dev }

// Size is the screen's width and height in pixels.
func (d *Driver) Size() (w, h int) { return d.w, d.h }

// do runs fn with the device's lock held, giving up when ctx ends (the
// call itself then finishes in the background, bounded by the client's
// timeout, so what fn writes is only the caller's to read when do returns
// nil).
func (d *Driver) do(ctx context.Context, what string, fn func(*guia2.Driver) error) error {
	if d == nil || d.drv == nil {
		return fmt.Errorf("scenario %s: driver closed", what)
	}
	done := make(chan error, 1)
	go func() {
		d.lock.Lock()
		defer d.lock.Unlock()
		done <- fn(d.drv)
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("scenario %s: %w", what, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("scenario %s: %w", what, ctx.Err())
	}
}

// Screenshot returns the screen as a PNG.
func (d *Driver) Screenshot(ctx context.Context) ([]byte, error) {
	var out []byte
	err := d.do(ctx, "screenshot", func(g *guia2.Driver) error {
		raw, err := g.Screenshot()
		if err != nil {
			return err
		}
		if _, err := png.DecodeConfig(bytes.NewReader(raw.Bytes())); err != nil {
			return fmt.Errorf("not a PNG: %w", err)
		}
		out = raw.Bytes()
		return nil
	})
	if err != nil {
		return nil, err // out may still be written by a call ctx gave up on
	}
	return out, nil
}

// Source returns the screen's hierarchy as uiautomator2 dumps it (XML).
func (d *Driver) Source(ctx context.Context) (string, error) {
	var out string
	err := d.do(ctx, "source", func(g *guia2.Driver) (err error) {
		out, err = g.Source()
		return err
	})
	if err != nil {
		return "", err // out may still be written by a call ctx gave up on
	}
	return out, nil
}
