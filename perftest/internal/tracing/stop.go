package tracing

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
)

// Dest is where the trace goes on the host: the results folder, and the
// base name and stem of the Result it belongs to.
type Dest struct {
	Dir  string
	Base string
	// Stem is the name the session's files share (nil: one of the
	// trace's own).
	Stem *result.Stem
	// Launched says a step launched the app: the app's main threads are
	// read whole, for the launches' phases (startupphase).
	Launched bool
}

// Stop ends the trace, waits (at most 10 s) for perfetto to write it,
// pulls it into dest and reads it; then it pulls what earlier sessions
// left (pullLeftovers) into dest.Dir. It runs once the session's lanes
// have stopped; mu, the session's lock, is taken only to record the
// outcome, as a process end's log read may still be recording its own.
func (r *Recorder) Stop(ctx context.Context, dest Dest, mu sync.Locker) {
	var o outcome
	if r.pid != 0 {
		o = r.fetch(ctx, dest)
	}
	leftovers := r.pullLeftovers(ctx, dest.Dir)
	mu.Lock()
	defer mu.Unlock()
	r.noteAll(append(o.notes, leftovers...))
	if r.pid == 0 {
		return
	}
	if o.notRecorded != "" {
		r.notRecorded("%s", o.notRecorded)
		return
	}
	info := r.info
	info.File, info.SizeBytes = o.path, o.size
	r.why, r.a, r.timing, r.secs = o.why, o.a, o.timing, o.secs
	if a := o.a; a != nil {
		info.Sources, info.NotMeasured, info.Rejected = a.Sources, a.NotMeasured, a.Rejected
		info.Notes = append(info.Notes, a.Notes...)
		for _, k := range slices.Sorted(maps.Keys(a.NotMeasured)) {
			r.env.Note(fmt.Sprintf("trace: %s not measured: %s", k, a.NotMeasured[k]))
		}
	}
}

// outcome is what stopping the trace gave.
type outcome struct {
	notes       []string
	notRecorded string // why there is no trace file
	path        string
	size        int64
	a           *trace.Analysis
	timing      *frametiming.Timing
	secs        *appSections
	why         string // why there is no analysis of the file
}

// fetch stops perfetto, pulls the file, removes it from the device once
// the copy is whole, and reads it. A failed or short pull leaves the file
// on the device and says where.
func (r *Recorder) fetch(ctx context.Context, dest Dest) (o outcome) {
	size, sizeWhy, err := r.stopPerfetto(ctx)
	switch {
	case err != nil:
		o.notRecorded = fmt.Sprintf("stopping perfetto: %v; the trace stays on the phone at %s (a later session with a trace stops and takes it)", err, r.remote)
		o.notes = r.release(ctx, false)
		return o
	case size < 0 && strings.Contains(sizeWhy, "No such file"):
		o.notRecorded = fmt.Sprintf("perfetto left no file at %s (%s)", r.remote, sizeWhy)
		o.notes = r.release(ctx, false)
		return o
	case size == 0:
		// An empty file holds nothing to lose.
		o.notRecorded = fmt.Sprintf("perfetto wrote nothing into %s", r.remote)
		o.notes = r.release(ctx, true)
		return o
	}
	// The trace takes the Result's stem, so that the Result names it
	// (and it the Result) whatever else writes into the folder meanwhile.
	bound := size
	if size < 0 {
		// The file holds at most the ring buffer and a little more.
		bound = int64(r.cfg.BufferKB) * 1024 * 5 / 4
	}
	path, err := r.pullWhole(ctx, r.remote, size, pullDeadline(bound), dest.Dir, dest.Base, ".perfetto-trace", dest.Stem)
	if err != nil {
		o.notRecorded = fmt.Sprintf("%v; the trace stays on the phone: adb pull %s", err, r.remote)
		o.notes = r.release(ctx, false)
		return o
	}
	if size < 0 {
		o.notes = append(o.notes, fmt.Sprintf("the trace's size on the phone could not be read (%s), so its copy cannot be told whole: it stays on the phone at %s", sizeWhy, r.remote))
	}
	o.notes = append(o.notes, r.release(ctx, size > 0)...)
	r.read(path, dest.Launched, &o)
	return o
}

// stopPerfetto stops perfetto and reads the file's size in the same round
// trip: the size, or -1 and why it could not be read. An error says
// perfetto could not be stopped.
func (r *Recorder) stopPerfetto(ctx context.Context) (size int64, sizeWhy string, err error) {
	// perfetto writes the file after the signal and exits when it is done:
	// the file is whole only once the process is gone, and its size is
	// read then.
	stop := fmt.Sprintf("kill -TERM %d 2>/dev/null; i=0; while kill -0 %d 2>/dev/null; do if [ $i -ge 100 ]; then echo 'perfetto (pid %d) still running 10 s after SIGTERM' >&2; exit 124; fi; i=$((i+1)); sleep 0.1; done", r.pid, r.pid, r.pid)
	stat := "stat -c %s " + adbx.Quote(r.remote)
	r.stopNs = r.env.Now()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	out, err := r.env.Batch(sctx, []string{stop, stat})
	cancel()
	if err == nil && len(out) != 2 {
		err = fmt.Errorf("batch of 2 commands returned %d results", len(out))
	}
	if err == nil && out[0].ExitCode != 0 {
		err = errors.New(devcmd.Failure(out[0], "kill -TERM "+strconv.Itoa(r.pid)))
	}
	if err != nil {
		return -1, "", err
	}
	if err := out[1].Err(stat); err != nil {
		return -1, err.Error(), nil
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(string(out[1].Stdout)), 10, 64)
	if perr != nil || n < 0 {
		return -1, fmt.Sprintf("%s printed %q", stat, devcmd.Clip(strings.TrimSpace(string(out[1].Stdout)))), nil
	}
	return n, "", nil
}

// read reads the trace pulled to path into o, the app's main threads
// whole when launched.
func (r *Recorder) read(path string, launched bool, o *outcome) {
	fi, err := os.Stat(path)
	if err != nil {
		o.notRecorded = fmt.Sprintf("%s: %v", path, err)
		return
	}
	o.path, o.size = path, fi.Size()
	f, err := os.Open(path)
	if err != nil {
		o.why = "the trace could not be read: " + err.Error()
		o.notes = append(o.notes, o.why)
		return
	}
	defer f.Close()
	// One Collector keeps the markers for both the frames and the
	// sections.
	c := &frametiming.Collector{}
	a, err := trace.Analyze(f, trace.Options{Package: r.cfg.Package, Marker: c.Marker, Packet: c.Packet, MainThreads: launched})
	if err != nil {
		o.notes = append(o.notes, fmt.Sprintf("%s: %v", path, err))
		if a == nil || a.Packets == 0 {
			o.why = fmt.Sprintf("the trace %s could not be read: %v", path, err)
			return
		}
	}
	o.a, o.timing = a, frametiming.Compute(a, c)
	if len(r.cfg.Sections) > 0 {
		o.secs = readSections(a, c)
	}
}

// Abandon stops a trace whose session failed to start, without reading
// it, and removes its file and its lease: a session that never measured
// has no trace to keep.
func (r *Recorder) Abandon() {
	if r.pid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.env.Batch(ctx, []string{fmt.Sprintf("kill -TERM %d", r.pid)})
	r.release(ctx, true)
	r.pid = 0
}
