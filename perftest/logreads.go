package perftest

import (
	"context"
	"time"

	"github.com/perfgate/perfgate/perftest/internal/ends"
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
