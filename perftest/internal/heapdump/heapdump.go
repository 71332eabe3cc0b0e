// Package heapdump takes the app's Java heap dumps for a session: `am
// dumpheap <pid> <file>` on the phone, waited for until the app has written
// the file whole, pulled beside the Result, read into a class histogram
// (android/hprof) and only then removed from the phone. A session takes one
// before its first step and one after its last; their diff names the
// classes that grew, which a failing memory gate quotes.
//
//	s := heapdump.Start(ctx, true, batch, pull, dest, pids) // the first
//	…                                                   // the steps
//	s.Stop(ctx, &mu, r)                                 // the last, and the diff
//
// `am dumpheap` returns before the dump is written on Android 10 and
// older (ActivityManagerShellCommand.runDumpHeap hands the file to the app
// and returns; Android 11 added a callback it waits for), and the app
// writes the file as it walks its heap, pausing at times. A size that
// holds still is no proof the dump is whole; the app's log line "hprof:
// heap dump completed" (ART's hprof.cc) is, and the size is read until two
// reads after it agree, so that the pull copies the file's final size.
package heapdump

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/hprof"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
)

// Env is what taking a dump needs of the session.
type Env struct {
	// Batch runs commands on the phone in one round trip.
	Batch func(ctx context.Context, cmds []string) ([]adbx.Result, error)
	// Pull copies a phone's file to w.
	Pull func(ctx context.Context, remote string, w io.Writer) error
	// Poll is how often the file and the log are read while the app
	// writes the dump; Timeout how long it may take in all.
	Poll, Timeout time.Duration
}

// Dest is where a dump goes on the host: the results folder, the Result's
// base name and the stem the session's files share, and which of the
// session's dumps it is ("first" or "last").
type Dest struct {
	Dir, Base string
	Stem      *result.Stem
	Which     string
}

// ErrRefused is matched (errors.Is) by the error of a dump the phone
// refused: the app is not debuggable (a release build on a user build of
// Android). It is a note for the Result, not a failure.
var ErrRefused = errors.New("heap dump refused")

// remoteDir is where dumps are written on the phone: the one folder both
// the shell and the app's runtime (through the fd system_server opens)
// may write.
const remoteDir = devcmd.TmpDir

// fileName is what a dump's name on the phone may hold.
var fileName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// Take dumps the heap of process pid and returns the dump as the Result
// keeps it, with its histogram; an error that matches ErrRefused when the
// phone refused. Whatever else goes wrong is an error naming the command.
func Take(ctx context.Context, env Env, pid int, dest Dest) (*result.HeapDump, *hprof.Histogram, error) {
	name := fmt.Sprintf("perfgate-heap-%d-%s.hprof", pid, dest.Which)
	if pid <= 0 || !fileName.MatchString(name) {
		return nil, nil, fmt.Errorf("heap dump: no process to dump (pid %d)", pid)
	}
	remote := path.Join(remoteDir, name)
	before, err := completions(ctx, env, pid)
	if err != nil {
		return nil, nil, err
	}
	cmd := fmt.Sprintf("am dumpheap %d %s", pid, adbx.Quote(remote))
	out, err := env.Batch(ctx, []string{cmd})
	if err != nil {
		return nil, nil, fmt.Errorf("heap dump: %s: %w", cmd, err)
	}
	text := string(devcmd.Output(out[0])) + string(out[0].Stderr)
	switch {
	case strings.Contains(text, "not debuggable"):
		return nil, nil, fmt.Errorf("%w: %s: the app is not debuggable (%s)", ErrRefused, cmd, devcmd.Clip(strings.TrimSpace(firstLine(text, "SecurityException"))))
	case out[0].ExitCode != 0 || strings.Contains(text, "Exception") || strings.Contains(text, "Error:"):
		return nil, nil, fmt.Errorf("heap dump: %s", devcmd.Failure(out[0], cmd))
	}
	size, err := waitWhole(ctx, env, pid, remote, before)
	if err != nil {
		return nil, nil, err
	}
	d, h, err := pull(ctx, env, remote, size, dest)
	if err != nil {
		return nil, nil, err
	}
	// The phone's copy goes only once the host's is safe and reads whole.
	env.Batch(ctx, []string{"rm -f " + adbx.Quote(remote)})
	return d, h, nil
}

func firstLine(s, with string) string {
	for _, ln := range strings.Split(s, "\n") {
		if strings.Contains(ln, with) {
			return ln
		}
	}
	return s
}

// logCmd lists the log's "heap dump completed" lines (brief format,
// "I/tag( pid): msg"), of every process: the phone's logcat may not know
// --pid (before Android 7), so the host picks the app's.
const logCmd = "logcat -d -v brief | grep 'hprof: heap dump completed'"

var briefPid = regexp.MustCompile(`^\S/[^(]*\(\s*(\d+)\):`)

// countCompleted counts the lines of out that pid logged.
func countCompleted(out []byte, pid int) int {
	n := 0
	for _, ln := range strings.Split(string(out), "\n") {
		if m := briefPid.FindStringSubmatch(ln); m != nil && m[1] == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}

// completions is how many dumps the process logged as completed so far.
func completions(ctx context.Context, env Env, pid int) (int, error) {
	out, err := env.Batch(ctx, []string{logCmd})
	if err != nil {
		return 0, fmt.Errorf("heap dump: %s: %w", logCmd, err)
	}
	// grep exits 1 when it finds none: that is a count of 0.
	return countCompleted(out[0].Stdout, pid), nil
}

// waitWhole waits until the app logged one more completed dump than
// before and the file's size then held still between two reads, and
// returns that size.
func waitWhole(ctx context.Context, env Env, pid int, remote string, before int) (int64, error) {
	stat := "stat -c %s " + adbx.Quote(remote)
	ctx, cancel := context.WithTimeout(ctx, env.Timeout)
	defer cancel()
	tick := time.NewTicker(env.Poll)
	defer tick.Stop()
	last, logged := int64(-1), false
	for {
		select {
		case <-ctx.Done():
			what := "the app never logged \"hprof: heap dump completed\""
			if logged {
				what = "its size never held still"
			}
			return 0, fmt.Errorf("heap dump: %s: not whole after %v: %s (last size %d)", remote, env.Timeout, what, last)
		case <-tick.C:
		}
		out, err := env.Batch(ctx, []string{stat, logCmd})
		if err != nil {
			continue // a failed round trip: the next poll tries again
		}
		size, err := strconv.ParseInt(strings.TrimSpace(string(devcmd.Output(out[0]))), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("heap dump: %s", devcmd.Failure(out[0], stat))
		}
		n := countCompleted(out[1].Stdout, pid)
		if logged && size == last && size > 0 {
			return size, nil
		}
		logged = logged || n > before
		last = size
	}
}

// pull copies the whole dump beside the Result and reads its histogram.
func pull(ctx context.Context, env Env, remote string, size int64, dest Dest) (*result.HeapDump, *hprof.Histogram, error) {
	cmd := "adb pull " + remote
	if err := os.MkdirAll(dest.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("heap dump: %s: %w", cmd, err)
	}
	ext := ".heap-" + dest.Which + ".hprof"
	tmp, err := os.CreateTemp(dest.Dir, "."+dest.Base+".*"+ext)
	if err != nil {
		return nil, nil, fmt.Errorf("heap dump: %s: %w", cmd, err)
	}
	defer os.Remove(tmp.Name()) // gone once claimed
	perr := env.Pull(ctx, remote, tmp)
	if err := errors.Join(perr, tmp.Sync()); err != nil {
		tmp.Close()
		return nil, nil, fmt.Errorf("heap dump: %s: %w", cmd, err)
	}
	if _, err := tmp.Seek(0, 0); err != nil {
		tmp.Close()
		return nil, nil, fmt.Errorf("heap dump: %s: %w", cmd, err)
	}
	h, err := hprof.ReadHistogram(tmp)
	fi, ferr := tmp.Stat()
	tmp.Close()
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("heap dump: %s: %w", cmd, err)
	case ferr != nil || fi.Size() != size:
		return nil, nil, fmt.Errorf("heap dump: %s: the copy has %d bytes, the phone's %d", cmd, fi.Size(), size)
	}
	os.Chmod(tmp.Name(), 0o644)
	p, err := dest.Stem.Claim(dest.Dir, dest.Base, ext, tmp.Name())
	if err != nil {
		return nil, nil, fmt.Errorf("heap dump: %s into %s: %w", cmd, dest.Dir, err)
	}
	d := &result.HeapDump{File: filepathBase(p), Bytes: size, Classes: len(h.Classes), Instances: h.Instances, ShallowBytes: h.ShallowBytes}
	return d, h, nil
}

func filepathBase(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// Session is a session's pair of dumps.
type Session struct {
	env   Env
	dest  Dest
	pid   int
	first *hprof.Histogram
	dumps *result.HeapDumps
}

// Start takes the session's first dump of the app's process pids[0] (the
// main one), when on; nil when off. Whatever goes wrong is the dumps'
// Note, and Stop then takes no second dump.
func Start(ctx context.Context, on bool, batch func(context.Context, []string) ([]adbx.Result, error),
	pull func(context.Context, string, io.Writer) error, dest Dest, pids []int) *Session {
	if !on {
		return nil
	}
	s := &Session{env: Env{Batch: batch, Pull: pull, Poll: 100 * time.Millisecond, Timeout: 3 * time.Minute},
		dest: dest, dumps: &result.HeapDumps{}}
	switch {
	case pull == nil:
		s.dumps.Note = "heap dumps: the device cannot pull files (adb sync)"
	case len(pids) == 0:
		s.dumps.Note = "heap dumps: the app was not running when the session started"
	default:
		s.pid = pids[0]
		s.dumps.First, s.first = s.take(ctx, "first")
	}
	return s
}

// take takes one dump; a failure becomes the Note.
func (s *Session) take(ctx context.Context, which string) (*result.HeapDump, *hprof.Histogram) {
	d := s.dest
	d.Which = which
	at := time.Now().UnixNano()
	dump, h, err := Take(ctx, s.env, s.pid, d)
	if err != nil {
		s.dumps.Note = err.Error()
		if !errors.Is(err, ErrRefused) {
			s.dumps.Note = fmt.Sprintf("heap dumps: the %s dump failed: %v", which, err)
		}
		return nil, nil
	}
	dump.PID, dump.HostNs = s.pid, at
	return dump, h
}

// Stop takes the last dump, when the first was taken and the app still
// runs in the same process, and stores both, with the classes that grew
// between them, in r under mu; a note on the dumps goes to r's notes too.
func (s *Session) Stop(ctx context.Context, mu sync.Locker, r *result.Result) {
	if s == nil {
		return
	}
	mu.Lock()
	var pids []int
	if n := len(r.Samples); n > 0 {
		pids = r.Samples[n-1].PIDs
	}
	mu.Unlock()
	switch {
	case s.first == nil:
	case !slices.Contains(pids, s.pid):
		s.dumps.Note = fmt.Sprintf("heap dumps: no last dump: process %d of the first is gone (the app now runs as %v)", s.pid, pids)
	default:
		var last *hprof.Histogram
		if s.dumps.Last, last = s.take(ctx, "last"); last != nil {
			g := hprof.Diff(s.first, last)
			s.dumps.Grew = g[:min(len(g), result.MaxGrew)]
		}
	}
	mu.Lock()
	r.HeapDumps = s.dumps
	if s.dumps.Note != "" { // the reports show the session's notes
		r.Notes = append(r.Notes, s.dumps.Note)
	}
	mu.Unlock()
}
