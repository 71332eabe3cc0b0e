// Package profiling samples the stacks of an app's main thread while a
// session runs, one recording per app process, with simpleperf where the
// phone has it, else ART's sampling profiler (`am profile start
// --sampling`, debuggable apps only), and reads the samples back at Stop.
//
//	p := profiling.New(batch, stream, "com.example.feed", 1000)
//	out, err := batch(ctx, profiling.SetupCmds())
//	p.Setup(ctx, out, note) // out nil when err != nil
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
	seen   map[int]bool
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
// from out, what SetupCmds gave (nil when their round trip failed); it
// returns the profiler's source, which the Result names.
func (p *Profiler) Setup(ctx context.Context, out []adbx.Result, note devcmd.Note) string {
	var res *adbx.Result
	if out != nil {
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
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	p.runs = append(p.runs, r)
	go func() {
		defer close(r.done)
		out, err := p.batch(ctx, []string{cmd})
		if err == nil && len(out) != 1 {
			err = fmt.Errorf("batch of 1 command returned %d results", len(out))
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		r.err = err
		if err == nil {
			r.res = out[0]
			if out[0].ExitCode != 0 && p.failed == "" {
				p.failed = devcmd.Failure(out[0], cmd)
			}
		}
	}()
}

// Stop asks every recording still running to stop (SIGINT, after
// which simpleperf writes its file) and waits for it, at most 30 s. ART's
// profiler writes its file when `am profile stop` asks it to.
func (p *Profiler) Stop(ctx context.Context) {
	p.mu.Lock()
	runs := slices.Clone(p.runs)
	art := p.source == sourceARTProfile
	p.mu.Unlock()
	for _, r := range runs {
		if art {
			<-r.done
			if r.err == nil && r.res.ExitCode == 0 {
				sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				p.batch(sctx, []string{fmt.Sprintf("am profile stop %d", r.pid)})
				cancel()
			}
			continue
		}
		select {
		case <-r.done:
			continue
		default:
		}
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		p.batch(sctx, []string{"pkill -INT -f " + adbx.Quote(r.pattern)})
		cancel()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			r.cancel()
			<-r.done
		}
	}
}
