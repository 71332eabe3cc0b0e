package perftest

import (
	"context"
	"slices"
	"time"

	"github.com/perfgate/perfgate/perftest/internal/ends"
	"github.com/perfgate/perfgate/perftest/internal/smooth"
	"github.com/perfgate/perfgate/result"
)

// readEnd reads the log about a process that disappeared and records it as
// a crash or as a process end (see ends.Source.Attribute). It runs off the
// tick path, so frame polling goes on, and takes the lock when the read
// is back.
func (c *collector) readEnd(cr result.Crash, end ends.Process) {
	defer c.aux.Done()
	ctx, cancel := context.WithTimeout(context.Background(), max(c.cfg.TickTimeout, 5*time.Second))
	defer cancel()
	cmds := c.ends.Cmds(c.s.res.Device.API)
	out, err := c.s.dev.batch(ctx, cmds)
	recv := c.s.now()
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	r := c.s.res
	rd := ends.Read{Cmds: cmds, Out: out, Err: err, RecvNs: recv}
	cr, notes, crash := c.ends.Attribute(cr, end, rd, c.cfg.Package, c.cfg.Interval, c.s.stepAtLocked)
	for _, n := range notes {
		c.note("%s", n)
	}
	if crash {
		r.Crashes = append(r.Crashes, cr)
		return
	}
	r.ProcessEnds = append(r.ProcessEnds, cr)
}

// readSkips reads the Choreographer lines once the lanes stopped: their
// times place them in the steps, whose SM summarise figures. The read is
// made again while the source asks for it (see smooth.Source.Absorb).
func (c *collector) readSkips(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(c.cfg.TickTimeout, 5*time.Second))
	defer cancel()
	cmds := c.smooth.Cmds(c.s.res.Device.API)
	for again := true; again; {
		send := c.s.now()
		out, err := c.s.dev.batch(ctx, cmds)
		recv := c.s.now()
		c.s.mu.Lock()
		again = c.smooth.Absorb(smooth.Read{Cmds: cmds, Out: out, Err: err, SendNs: send, RecvNs: recv, Offset: c.uptimeOffset, PIDs: c.appPIDsLocked()})
		c.s.mu.Unlock()
	}
}

// uptimeOffset joins a /proc/uptime read (device ns) made between host
// times send and recv to the session's /proc/uptime clock map, and returns
// the map's offset, device − host.
func (c *collector) uptimeOffset(send, recv, up int64) int64 {
	c.clockProc.Observe("/proc/uptime", send, recv, up, 10*int64(time.Millisecond))
	return c.clockProc.Offset()
}

// appPIDsLocked are the app's processes at the session's start and every
// one a tick saw; the caller holds the session's lock.
func (c *collector) appPIDsLocked() []int {
	pids := slices.Clone(c.s.res.App.PIDs)
	for _, smp := range c.s.res.Samples {
		pids = append(pids, smp.PIDs...)
	}
	return pids
}
