// Package profiling samples the stacks of an app's main thread while a
// session runs, one recording per app process, with simpleperf where the
// phone has it, else ART's sampling profiler (`am profile start
// --sampling`, debuggable apps only), and reads the samples back at Stop.
//
//	p := profiling.New(batch, stream, "com.example.feed", 1000)
//	out, err := batch(ctx, profiling.SetupCmds())
//	p.Setup(ctx, out, err, note)
//	p.Start(pid)            // for each app process, as it appears
//	p.Stop(ctx)
//	samples, notes := p.Read(ctx)
package profiling

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// Profiler is the session's recordings of the app's main thread, one per
// app process, by simpleperf or ART's sampling profiler (source). Its
// methods are safe for concurrent use.
type Profiler struct {
	batch  devcmd.Batch
	stream devcmd.Stream // nil: the device cannot stream
	pkg    string
	hz     int

	mu     sync.Mutex
	source string
	runs   []*profRun
	why    string // why no stacks can be sampled at all
	failed string // why a recording failed
	// refused says the profiler refused that recording (exit status not 0).
	refused bool
	seen    map[int]bool
}

// profRun is one recording of one process's main thread. For simpleperf,
// done closes when the recorder exits; for ART's profiler, when `am
// profile start` returned.
type profRun struct {
	pid     int
	file    string
	pattern string // pkill -f pattern matching the simpleperf recorder alone
	// intervalUs is how often ART's profiler samples.
	intervalUs int64
	cancel     context.CancelFunc
	done       chan struct{}
	res        adbx.Result
	err        error
	// stopping is the command that asked the recorder to stop, "" before;
	// stopFailed says how it failed, "" when it did not.
	stopping, stopFailed string
	// why says why the recording's samples are lost (it failed, did not
	// stop, or could not be read), "" while they are not.
	why string
}

// ok says the recording ran and ended well; the caller holds p.mu.
func (r *profRun) ok() bool { return r.err == nil && r.res.ExitCode == 0 && r.why == "" }

// refused says the profiler refused the recording: it ran, and exited
// with a status not 0; the caller holds p.mu.
func (r *profRun) refused() bool { return r.err == nil && r.res.ExitCode != 0 }

// lose records why the recording's samples are lost, the first reason
// only; the caller holds p.mu.
func (r *profRun) lose(why string) {
	if r.why == "" {
		r.why = why
	}
}

// maxRecording bounds a recording's device call. A recording lasts as long
// as the session, which ends it (Stop, Cleanup): without a deadline of its
// own the call would get the device's default one (adbx.DefaultTimeout,
// 10 s), which would kill the recorder, and every sample with it, in any
// longer session.
const maxRecording = 7 * 24 * time.Hour

// one runs cmd alone in a batch; err names cmd when the call failed.
func (p *Profiler) one(ctx context.Context, cmd string) (adbx.Result, error) {
	out, err := p.batch(ctx, []string{cmd})
	if err == nil && len(out) != 1 {
		err = fmt.Errorf("batch of 1 command returned %d results", len(out))
	}
	if err != nil {
		return adbx.Result{}, fmt.Errorf("%s: %w", cmd, err)
	}
	return out[0], nil
}

// New is a profiler of app pkg's main thread, sampling sampleHz times a
// second (1000 when not above 0), that records nothing before Setup.
// stream is nil where the device cannot stream.
func New(batch devcmd.Batch, stream devcmd.Stream, pkg string, sampleHz int) *Profiler {
	return &Profiler{batch: batch, stream: stream, pkg: pkg, hz: sampleHz}
}

// Leave records why the session samples no stacks.
func (p *Profiler) Leave(why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.why = why
}

// The profilers a session samples the main thread with.
const (
	sourceSimpleperf = "simpleperf record --app <pkg> -t <main thread> -e cpu-clock -g --clockid monotonic; simpleperf report-sample --show-callchain"
	sourceARTProfile = "am profile start --sampling <µs> <main process> <file>; am profile stop (ART's sampling profiler, debuggable apps)"
)

// stackSourceCmd tells whether the device has simpleperf.
const stackSourceCmd = "command -v simpleperf"

// SetupCmds are what Setup needs read of the phone, for the setup's round
// trip: whether it has simpleperf, and the profiler files earlier
// sessions left (leftover.go).
func SetupCmds() []string { return append([]string{stackSourceCmd}, profilerListing()...) }

// Setup picks the profiler and removes the files earlier sessions left,
// from out, what SetupCmds gave, or err, why their round trip failed; it
// returns the profiler's source, which the Result names.
func (p *Profiler) Setup(ctx context.Context, out []adbx.Result, err error, note devcmd.Note) string {
	var res *adbx.Result
	if err == nil && len(out) != len(SetupCmds()) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(SetupCmds()), len(out))
	}
	if err != nil {
		note("stacks: %s: %v: simpleperf is tried, and the profiler files of earlier sessions were not looked for", stackSourceCmd, err)
	} else {
		res = &out[0]
		p.removeLeftovers(ctx, out[1:], note)
	}
	src := stackSource(res, note)
	p.mu.Lock()
	p.source = src
	p.mu.Unlock()
	return src
}

// stackSource picks simpleperf where the device has it (res is what
// stackSourceCmd gave, nil when its round trip failed), else ART's
// sampling profiler (debuggable apps only).
func stackSource(res *adbx.Result, note devcmd.Note) string {
	if res != nil && res.ExitCode != 0 {
		note("stacks: the device has no simpleperf (%s: exit %d); sampling with `am profile start --sampling`, which needs a debuggable app", stackSourceCmd, res.ExitCode)
		return sourceARTProfile
	}
	return sourceSimpleperf
}

// Start starts the profiler on the main thread of app process
// pid, once per process.
func (p *Profiler) Start(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.why != "" || p.seen[pid] || p.source == "" {
		return
	}
	if p.seen == nil {
		p.seen = map[int]bool{}
	}
	p.seen[pid] = true
	var b [8]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	hz := p.hz
	if hz <= 0 {
		hz = 1000
	}
	r := &profRun{pid: pid, file: devcmd.TmpDir + "/perfgate-" + token + ".data", done: make(chan struct{})}
	// Anchored at the recorder's own command line: the shells that run it
	// and the pkill carry the pattern too, but start otherwise.
	r.pattern = "^simpleperf record .*perfgate-" + token + "[.]data"
	cmd := fmt.Sprintf("simpleperf record --app %s -t %d -e cpu-clock -f %d -g --clockid monotonic -o %s",
		adbx.Quote(p.pkg), pid, hz, r.file)
	if p.source == sourceARTProfile {
		r.file = devcmd.TmpDir + "/perfgate-" + token + ".trace"
		r.intervalUs = int64(max(1, 1_000_000/hz))
		cmd = fmt.Sprintf("am profile start --sampling %d %d %s", r.intervalUs, pid, r.file)
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxRecording)
	r.cancel = cancel
	p.runs = append(p.runs, r)
	go func() {
		defer close(r.done)
		defer cancel()
		res, err := p.one(ctx, cmd)
		p.mu.Lock()
		defer p.mu.Unlock()
		r.err, r.res = err, res
		why := failed(res, err)(cmd)
		switch {
		case err == nil || r.stopping == "":
		case r.stopFailed != "":
			why = "the simpleperf recorder could not be stopped, so it wrote no samples: " + r.stopFailed
		default:
			why = fmt.Sprintf("%s did not end within %v of `%s`, so it wrote no samples", cmd, stopWait, r.stopping)
		}
		if why != "" {
			r.lose(why)
			if p.failed == "" {
				p.failed, p.refused = why, r.refused()
			}
		}
	}()
}

// stopWait is how long a recorder asked to stop may take to write its
// file before its call is ended.
const stopWait = 30 * time.Second

// Stop asks every recording still running to stop (SIGINT, after
// which simpleperf writes its file) and waits for it, at most stopWait.
// ART's profiler writes its file when `am profile stop` asks it to. A stop
// that fails is recorded as why the recording's samples are lost.
func (p *Profiler) Stop(ctx context.Context) {
	p.mu.Lock()
	runs := slices.Clone(p.runs)
	art := p.source == sourceARTProfile
	p.mu.Unlock()
	for _, r := range runs {
		if art {
			<-r.done
			p.mu.Lock()
			ok := r.ok()
			p.mu.Unlock()
			if ok {
				cmd := fmt.Sprintf("am profile stop %d", r.pid)
				sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				why := failed(p.one(sctx, cmd))(cmd)
				cancel()
				if why != "" {
					p.mu.Lock()
					r.lose(why)
					p.mu.Unlock()
				}
			}
			continue
		}
		select {
		case <-r.done:
			continue
		default:
		}
		p.interrupt(ctx, r)
		select {
		case <-r.done:
		case <-time.After(stopWait):
			r.cancel()
			<-r.done
		}
	}
}

// interrupt sends the recorder of r SIGINT, and records how it was asked
// to stop, for the note of a recorder that does not.
func (p *Profiler) interrupt(ctx context.Context, r *profRun) {
	cmd := "pkill -INT -f " + adbx.Quote(r.pattern)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	why := failed(p.one(sctx, cmd))(cmd)
	cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	r.stopping, r.stopFailed = cmd, why
}

// failed says why a command run by one failed, "" when it ran and exited
// 0: failed(p.one(ctx, cmd))(cmd).
func failed(res adbx.Result, err error) func(cmd string) string {
	return func(cmd string) string {
		switch {
		case err != nil:
			return err.Error()
		case res.ExitCode != 0:
			return devcmd.Failure(res, cmd)
		}
		return ""
	}
}
