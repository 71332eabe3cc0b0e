package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end `perfgate run` and `perfgate record` early: what was
// measured is still summarised and written, and the exit status is the
// shell's for the signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// notifyStop relays the first stop signal the process gets. After it the
// signals have their default effect again, so a second Ctrl-C ends the
// process at once.
func notifyStop() (sigs <-chan os.Signal, stop func()) {
	in := make(chan os.Signal, 1)
	out := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(in, stopSignals...)
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

// watchStop is a context that ends at the first signal from sigs, with a
// stopSignal as its cause.
func watchStop(sigs <-chan os.Signal) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(stopSignal{s})
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// stopSignal is the cause of a context a signal ended.
type stopSignal struct{ sig os.Signal }

func (s stopSignal) Error() string {
	switch s.sig {
	case os.Interrupt:
		return "interrupted (SIGINT)"
	case syscall.SIGTERM:
		return "terminated (SIGTERM)"
	case syscall.SIGHUP:
		return "hung up (SIGHUP)"
	}
	return "stopped by " + s.sig.String()
}

// exitCode is the status a shell gives a process the signal ended: 128
// plus its number.
func (s stopSignal) exitCode() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// caught returns the signal that ended ctx, if one did.
func caught(ctx context.Context) (stopSignal, bool) {
	var s stopSignal
	ok := errors.As(context.Cause(ctx), &s)
	return s, ok
}
