package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// Record measures one step of sess, named name, in which the scenario
// does nothing: the user drives the app. The step lasts until d passes
// (d > 0), ctx ends or the session does; then the session stops. With d
// set, a ctx that ends first cuts the step short: it is marked unfinished
// and cut is true. Without d, ctx's end is the recording's end. A session
// that waited for its app (Config.WaitForApp) which never ran in it
// measured nothing: the step and the Result fail, saying so.
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
	r = sess.Stop()
	if r.Error == "" && !appRan(r) {
		r.Error = fmt.Sprintf("record: app %s never started while the session waited for it (-wait, Config.WaitForApp): nothing measured", r.App.Package)
		sess.FailStep(name, r.Error)
		if err := sess.Publish(); err != nil { // the Result on disk gets the error too
			r.Error += fmt.Sprintf(" (the Result was not rewritten: %v)", err)
		}
	}
	return r, cut
}

// appRan reports whether r saw its app running: at Start, or in a sample.
func appRan(r *result.Result) bool {
	if r.App.RunningAtStart {
		return true
	}
	for _, smp := range r.Samples {
		if len(smp.PIDs) > 0 {
			return true
		}
	}
	return false
}
