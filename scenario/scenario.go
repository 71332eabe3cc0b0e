package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/filename"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// Scenario binds a uiautomator2 Driver to a perftest session, so every
// step of actions is measured.
type Scenario struct {
	t       perftest.TestingT
	pkg     string
	dev     *adbx.Device
	driver  *Driver
	session *perftest.Session
	name    string
	results string
	errs    *stepErrors
	// ActionTimeout bounds each action; default 60 s.
	ActionTimeout time.Duration
}

type scenarioKey struct{}

func scenarioOf(ctx context.Context) *Scenario {
	sc, _ := ctx.Value(scenarioKey{}).(*Scenario)
	return sc
}

// Start connects to the device's uiautomator2 server and starts measuring
// pkg (the app need not run yet: a Launch step starts it). Options are
// perftest's. A scenario that cannot start fails the test at once; the
// session stops and the driver closes at the test's cleanup.
func Start(t perftest.TestingT, dev *adbx.Device, pkg string, opts ...perftest.Option) *Scenario {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drv, err := Connect(ctx, dev, Options{})
	if err != nil {
		t.Errorf("%v", err)
		t.FailNow()
		return nil
	}
	opts = append([]perftest.Option{perftest.WithConfig(perftest.Config{WaitForApp: true}), perftest.App(pkg)}, opts...)
	s := perftest.Start(t, dev, opts...)
	if s == nil {
		drv.Close()
		return nil
	}
	sc := &Scenario{t: t, pkg: pkg, dev: dev, driver: drv, session: s, results: s.ResultsDir(), errs: &stepErrors{}}
	sc.name = s.Name()
	if n, ok := t.(interface{ Name() string }); ok && sc.name == "" {
		sc.name = n.Name()
	}
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(func() { sc.Stop() })
	}
	return sc
}

// New connects to the device's uiautomator2 server and starts measuring
// pkg outside a test, as `perfgate run` does: a step whose action fails
// records the failure in the Result (perftest.Session.FailStep) and in
// Errors instead of failing a test. cfg names the session (Name, where
// its Result goes, …); its Package is pkg, and it waits for the app to
// start. The caller stops it (Stop) and publishes the Result (Session's
// Publish) once it has checked it.
func New(ctx context.Context, dev *adbx.Device, pkg string, cfg perftest.Config) (*Scenario, error) {
	drv, err := Connect(ctx, dev, Options{})
	if err != nil {
		return nil, err
	}
	cfg.Package, cfg.WaitForApp = pkg, true
	s, err := perftest.NewSession(ctx, dev, cfg)
	if err != nil {
		drv.Close()
		return nil, err
	}
	return &Scenario{pkg: pkg, dev: dev, driver: drv, session: s, name: cfg.Name, results: s.ResultsDir(), errs: &stepErrors{}}, nil
}

// Errors are the lines of the steps that failed so far, in order, as a
// test would have reported them.
func (sc *Scenario) Errors() []string {
	sc.errs.mu.Lock()
	defer sc.errs.mu.Unlock()
	return append([]string(nil), sc.errs.lines...)
}

// stepErrors keeps the failed steps' lines.
type stepErrors struct {
	mu    sync.Mutex
	lines []string
}

// fail reports a step's failure: through the test when there is one, and
// in Errors.
func (sc *Scenario) fail(line string) {
	sc.errs.mu.Lock()
	sc.errs.lines = append(sc.errs.lines, line)
	sc.errs.mu.Unlock()
	if sc.t != nil {
		if h, ok := sc.t.(interface{ Helper() }); ok {
			h.Helper()
		}
		sc.t.Errorf("%s", line)
	}
}

// Driver is the scenario's uiautomator2 driver.
func (sc *Scenario) Driver() *Driver { return sc.driver }

// Session is the scenario's perftest session.
func (sc *Scenario) Session() *perftest.Session { return sc.session }

// Step runs actions, in order, as the measured step name. An action that
// fails reports the step, the action and why, saves a screenshot into the
// results directory, and skips the step's remaining actions; the test goes
// on. It returns whether every action succeeded. Each action has
// ActionTimeout, plus the time it waits on purpose (a Sleep, a WaitFor).
func (sc *Scenario) Step(name string, actions ...Action) bool {
	if h, ok := sc.t.(interface{ Helper() }); ok && sc.t != nil {
		h.Helper()
	}
	return sc.StepContext(context.Background(), name, actions...)
}

// StepContext is Step with its actions under ctx. When ctx ends (an
// interrupt), the action in progress ends early (a Sleep, a WaitFor, a
// request in flight) and the rest are skipped; the step is then marked
// Unfinished (result.Step.Unfinished) and reported as interrupted by
// context.Cause(ctx), without a screenshot. A ctx already ended runs
// nothing.
func (sc *Scenario) StepContext(ctx context.Context, name string, actions ...Action) bool {
	if h, ok := sc.t.(interface{ Helper() }); ok {
		h.Helper()
	}
	if ctx.Err() != nil {
		sc.fail(fmt.Sprintf("scenario step %q: not run: %v", name, context.Cause(ctx)))
		return false
	}
	var failed error
	var which Action
	interrupted := false
	sc.session.Step(name, func() {
		for _, a := range actions {
			if ctx.Err() != nil {
				failed, which, interrupted = context.Cause(ctx), a, true
				sc.session.EndUnfinished()
				return
			}
			timeout := sc.ActionTimeout
			if timeout <= 0 {
				timeout = 60 * time.Second
			}
			actx, cancel := context.WithTimeout(context.WithValue(ctx, scenarioKey{}, sc), timeout+waits(a))
			err := a.Do(actx, sc.driver)
			cancel()
			if err != nil {
				failed, which = err, a
				if ctx.Err() != nil {
					failed, interrupted = context.Cause(ctx), true
					sc.session.EndUnfinished()
				}
				return
			}
		}
	})
	if failed == nil {
		return true
	}
	if interrupted {
		sc.fail(fmt.Sprintf("scenario step %q: %s: interrupted: %v; the step is marked unfinished", name, which, failed))
		return false
	}
	msg := fmt.Sprintf("scenario step %q: %s: %v", name, which, failed)
	if shot, err := sc.screenshot(name); err == nil {
		msg += " (screenshot " + shot + ")"
	} else {
		msg += fmt.Sprintf(" (no screenshot: %v)", err)
	}
	sc.session.FailStep(name, msg)
	sc.fail(msg)
	return false
}

// Do runs fn as the measured step name, for steps the actions do not
// cover; an error fails like an action's.
func (sc *Scenario) Do(name string, fn func(ctx context.Context, d *Driver) error) bool {
	if h, ok := sc.t.(interface{ Helper() }); ok {
		h.Helper()
	}
	return sc.Step(name, Func(name, fn))
}

// screenshot saves the screen as <test>__<step>@<serial>.png in the
// results directory: the device's serial keeps two devices of a pool that
// fail the same step apart, and a later run of the test on the device
// replaces an earlier run's.
func (sc *Scenario) screenshot(step string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	png, err := sc.driver.Screenshot(ctx)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(sc.results, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(sc.results, filename.Of(sc.name+"__"+step)+"@"+filename.Of(sc.dev.Serial())+".png")
	return p, os.WriteFile(p, png, 0o644)
}

// Stop stops the session and closes the driver, and returns the Result.
// It is safe to call more than once.
func (sc *Scenario) Stop() *result.Result {
	if sc == nil {
		return &result.Result{Schema: result.Schema}
	}
	if h, ok := sc.t.(interface{ Helper() }); ok {
		h.Helper()
	}
	r := sc.session.Stop()
	if sc.driver != nil {
		sc.driver.Close()
		sc.driver = nil
	}
	return r
}
