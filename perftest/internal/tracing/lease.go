package tracing

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// liveTraces holds the trace files this process's sessions record, by
// serial and path: they are never leftovers to a session of this process,
// lease or not.
var liveTraces sync.Map

func traceKey(serial, p string) string { return serial + "\x00" + p }

// lease keeps a session's lease fresh: it touches the lease every
// leaseEvery until released.
type lease struct {
	path string
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	failed int
	first  error
}

// holdLease starts touching the lease l; tick gives the times (a
// time.Ticker's channel outside tests).
func (r *Recorder) holdLease(l string, tick <-chan time.Time) *lease {
	h := &lease{path: l, stop: make(chan struct{}), done: make(chan struct{})}
	touch := "touch " + adbx.Quote(l)
	go func() {
		defer close(h.done)
		for {
			select {
			case <-h.stop:
				return
			case <-tick:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			out, err := r.env.Batch(ctx, []string{touch})
			cancel()
			if err == nil && len(out) == 1 {
				err = out[0].Err(touch)
			}
			if err != nil {
				h.mu.Lock()
				h.failed++
				if h.first == nil {
					h.first = err
				}
				h.mu.Unlock()
			}
		}
	}()
	return h
}

// release stops touching the lease and says whether touching it failed.
func (h *lease) release() string {
	if h == nil {
		return ""
	}
	close(h.stop)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed == 0 {
		return ""
	}
	n := "1 failure"
	if h.failed > 1 {
		n = fmt.Sprintf("%d failures", h.failed)
	}
	return fmt.Sprintf("the lease %s could not be touched (%s; the first: %v): for a while another session on this phone could have taken this trace for a leftover", h.path, n, h.first)
}

// release ends the session's claim on its trace: it stops touching the
// lease, then removes the lease and, when removeFile says the trace is
// safe on the host (or held nothing), the trace file, in one round trip.
// It returns the notes.
func (r *Recorder) release(ctx context.Context, removeFile bool) []string {
	var notes []string
	if r.leaseTicker != nil {
		r.leaseTicker.Stop()
	}
	if n := r.lease.release(); n != "" {
		notes = append(notes, n)
	}
	r.lease, r.leaseTicker = nil, nil
	defer liveTraces.Delete(traceKey(r.env.Serial, r.remote))
	var cmds []string
	if removeFile {
		cmds = append(cmds, "rm -f "+adbx.Quote(r.remote))
	}
	if r.leasePath != "" {
		cmds = append(cmds, "rm -f "+adbx.Quote(r.leasePath))
	}
	if len(cmds) == 0 {
		return notes
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	out, err := r.env.Batch(rctx, cmds)
	cancel()
	if err != nil {
		return append(notes, fmt.Sprintf("%s: %v", strings.Join(cmds, "; "), err))
	}
	for i, cmd := range cmds {
		if i < len(out) && out[i].ExitCode != 0 {
			notes = append(notes, devcmd.Failure(out[i], cmd))
		}
	}
	return notes
}
