package perftest

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/result"
)

// guardSignals keeps a session's Result and the phone's state when the
// test binary is interrupted (Ctrl-C, SIGTERM, SIGHUP) before Stop: the
// session stops as Stop stops it (its open step marked unfinished, the
// Looper property restored, the profiler and trace stopped), writes its
// Result with the signal as its error, and then the signal takes its
// course. It runs only in a test binary (go test), where nothing else
// handles the signals: a program that opens sessions (NewSession, or
// Start with a TestingT of its own, as `perfgate run` does) handles its
// signals and calls Stop. A signal the process ignores is left alone
// (guardedSignals).
func (s *Session) guardSignals() {
	if result.TestPackage() == "" {
		return
	}
	if !guard.add(s) {
		return
	}
	s.unguard = func() { guard.remove(s) }
}

// guard is the test binary's one handler of stop signals, for every
// session it has open. It is made, and its goroutine started, when the
// package initialises: outside any testing/synctest bubble, so that a
// session started inside one neither makes the signal channel part of its
// bubble (the runtime, outside it, sends to that channel) nor starts the
// os/signal machinery's goroutines there, and the guard outlives it.
var guard = newSignalGuard()

// signalGuard handles the stop signals while sessions are open: each
// signal stops them all at once, and is raised again once they stopped
// (or guardWait passed).
type signalGuard struct {
	mu    sync.Mutex
	live  map[*Session]bool
	sigs  chan os.Signal   // what signal.Notify delivers
	arm   chan []os.Signal // signals to catch; nil: catch none
	armed chan struct{}    // arm's request done
}

func newSignalGuard() *signalGuard {
	g := &signalGuard{
		live:  map[*Session]bool{},
		sigs:  make(chan os.Signal, 1),
		arm:   make(chan []os.Signal),
		armed: make(chan struct{}),
	}
	go g.run()
	return g
}

// guardWait bounds how long an interrupted test binary waits for its
// sessions to stop before the signal ends it.
const guardWait = 20 * time.Second

// add registers s, installing the handler for the first live session; it
// reports false when there is no signal to guard.
func (g *signalGuard) add(s *Session) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.live) == 0 {
		guarded := guardedSignals()
		if len(guarded) == 0 {
			return false
		}
		g.arm <- guarded
		<-g.armed
	}
	g.live[s] = true
	return true
}

// remove unregisters s, giving the signals back their default when no
// session is left.
func (g *signalGuard) remove(s *Session) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.live[s] {
		return
	}
	delete(g.live, s)
	if len(g.live) == 0 {
		g.arm <- nil
		<-g.armed
	}
}

// run catches and releases the signals as add and remove ask, and stops
// every live session on a signal.
func (g *signalGuard) run() {
	for {
		select {
		case sigs := <-g.arm:
			if sigs == nil {
				signal.Stop(g.sigs)
				// A signal caught as the last session left has no
				// session to stop.
				select {
				case <-g.sigs:
				default:
				}
			} else {
				signal.Notify(g.sigs, sigs...)
			}
			g.armed <- struct{}{}
		case sig := <-g.sigs:
			go g.stopAll(sig)
		}
	}
}

// stopAll stops every live session, then raises sig again.
func (g *signalGuard) stopAll(sig os.Signal) {
	g.mu.Lock()
	live := make([]*Session, 0, len(g.live))
	for s := range g.live {
		live = append(live, s)
	}
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Go(func() { s.interrupt(sig) })
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(guardWait):
	}
	g.arm <- nil
	<-g.armed
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Signal(sig)
	}
}

// interrupt ends the session on a signal: its open step is unfinished, and
// Stop restores the phone and writes the Result, whose error names the
// signal; the Result is published (reports, history) as at a test's end.
func (s *Session) interrupt(sig os.Signal) {
	s.mu.Lock()
	if s.endErr == nil && !s.stopped {
		s.endErr = fmt.Errorf("perftest: interrupted by %v before the session stopped", sig)
	}
	if s.cur != nil {
		s.cur.Unfinished = true
	}
	s.endLocked()
	s.mu.Unlock()
	s.Publish()
}

// stopSignals are the signals that end a test binary that does not
// handle them.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// guardedSignals are the stop signals the process does not ignore. An
// ignored one does not end it (a test binary that a script starts in the
// background runs with SIGINT ignored), and catching it would undo that:
// signal.Notify stops ignoring it, and the guard, having restored the
// property, raised it again into a process that went back to ignoring
// it. The session went on with the property restored, and an app
// process started after that logged no slow message: its blocks read as
// none where they were not measured.
func guardedSignals() []os.Signal {
	var out []os.Signal
	for _, sig := range stopSignals {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}
