package scenario

import (
	"context"
	"time"

	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// Record measures one step of sess, named name, in which the scenario
// does nothing: the user drives the app. The step lasts until d passes
// (d > 0), ctx ends or the session does; then the session stops. With d
// set, a ctx that ends first cuts the step short: it is marked unfinished
// and cut is true. Without d, ctx's end is the recording's end.
func Record(ctx context.Context, sess *perftest.Session, name string, d time.Duration) (r *result.Result, cut bool) {
	sess.Begin(name)
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-timeout:
	case <-sess.Done():
	}
	cut = ctx.Err() != nil && d > 0
	if cut {
		sess.EndUnfinished()
	} else {
		sess.End()
	}
	return sess.Stop(), cut
}
