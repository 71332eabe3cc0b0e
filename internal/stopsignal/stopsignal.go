// Package stopsignal is how a command stops early on a signal: the first
// SIGINT, SIGTERM or SIGHUP relayed (a second one has its default effect),
// a context that ends with the signal as its cause, and the status a shell
// gives a process that signal ended.
//
//	sigs, stop := stopsignal.Notify()
//	defer stop()
//	ctx, done := stopsignal.Watch(sigs)
//	defer done()
//	...
//	if sig, ok := stopsignal.Caught(ctx); ok {
//		os.Exit(sig.ExitCode())
//	}
package stopsignal

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Signals end a command early: what was measured is still summarised and
// written, and the exit status is the shell's for the signal (130 for
// SIGINT, 143 for SIGTERM, 129 for SIGHUP).
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Notify relays the first of Signals the process gets. After it the
// signals have their default effect again, so a second Ctrl-C ends the
// process at once.
func Notify() (sigs <-chan os.Signal, stop func()) {
	in := make(chan os.Signal, 1)
	out := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(in, Signals...)
	go func() {
		select {
		case s := <-in:
			signal.Stop(in)
			out <- s
		case <-done:
		}
	}()
	return out, func() { signal.Stop(in); close(done) }
}

// Watch is a context that ends at the first signal from sigs, with a
// Signal as its cause.
func Watch(sigs <-chan os.Signal) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(Signal{s})
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// Signal is the cause of a context a signal ended.
type Signal struct{ Sig os.Signal }

func (s Signal) Error() string {
	switch s.Sig {
	case os.Interrupt:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	case syscall.SIGHUP:
		return "hung up (SIGHUP)"
	}
	return "stopped by " + s.Sig.String()
}

// ExitCode is the status a shell gives a process the signal ended: 128
// plus its number.
func (s Signal) ExitCode() int {
	if n, ok := s.Sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// Caught returns the signal that ended ctx, if one did.
func Caught(ctx context.Context) (Signal, bool) {
	var s Signal
	ok := errors.As(context.Cause(ctx), &s)
	return s, ok
}

// FanOut gives each of n receivers the signals sigs brings, until ctx
// ends: each run of a fan-out stops its own step.
func FanOut(ctx context.Context, sigs <-chan os.Signal, n int) []chan os.Signal {
	fan := make([]chan os.Signal, n)
	for i := range fan {
		fan[i] = make(chan os.Signal, 1)
	}
	go func() {
		for {
			select {
			case sig := <-sigs:
				for _, c := range fan {
					select {
					case c <- sig:
					default:
					}
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return fan
}
