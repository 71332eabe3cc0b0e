package perftest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/result"
)

// What a session's trace leaves on a phone, and how a later session finds
// what an earlier one left.
//
// Every trace file perfgate has perfetto write is named
// /data/misc/perfetto-traces/perfgate-<package>-<n>.perfetto-trace, and
// while its session runs, the session holds a lease on it: the file
// /data/local/tmp/perfgate-<package>-<n>.trace-lease, made before perfetto
// starts and touched every traceLeaseEvery until the trace is off the
// phone. (The lease is a file of its own because the shell user may read
// and remove perfetto's files but not change their times.) A session that
// dies without stopping (SIGKILL, a host that crashed) stops touching its
// lease, and its perfetto records on until its MaxDuration, its file
// staying behind.
//
// When a session with a trace starts, it lists the perfgate-* traces on
// the phone, the perfetto processes writing one (ps -o ARGS names the file)
// and the leases, on the phone's own clock. A trace is a leftover when no
// session of this process records it, no lease of it was touched within
// traceGrace, and its file, when there is one, is older than traceGrace:
// a session running at the same time, here or on another host, touches
// its lease every minute, and a file younger than the grace period may be
// one whose session is about to make or take it. A leftover that perfetto
// still records is stopped at once (its recording would take the tracing
// service's resources from this session's); leftover files are pulled
// when this session stops, after its own trace and outside its
// measurements, into the results folder as
// <name>.leftover.perfetto-trace, and removed from the phone once the copy
// is whole. A lease nobody touched within the grace period is removed.
// Each of these is a note of the Result.

// Where leftovers are looked for, and their timings.
const (
	// traceLeaseDir is where leases are: the shell user may make and
	// touch files there on every Android version.
	traceLeaseDir = "/data/local/tmp"
	// traceLeaseEvery is how often a session touches its lease.
	traceLeaseEvery = time.Minute
	// traceGrace is how long a lease or a trace file stays another
	// session's: ten times traceLeaseEvery, so that a host busy for a
	// while does not lose its trace to another session.
	traceGrace = 10 * time.Minute
)

// The pull's deadline: tracePullFloor, plus the file's size at
// tracePullRate, the rate of a slow adb link over Wi-Fi (USB 2 moves
// 20–40 MiB/s), so that a 1 GiB trace gets 19 min 4 s.
const (
	tracePullFloor = 2 * time.Minute
	tracePullRate  = 1 << 20 // bytes per second
)

// tracePullDeadline is how long pulling a file of size bytes may take.
func tracePullDeadline(size int64) time.Duration {
	size = min(max(size, 0), 1<<40) // a size past 1 TiB is no trace's
	return tracePullFloor + time.Duration(size/tracePullRate)*time.Second + time.Duration(size%tracePullRate)*time.Second/tracePullRate
}

// traceName matches the names of perfgate's trace files.
var traceName = regexp.MustCompile(`^perfgate-[A-Za-z][A-Za-z0-9_.]*-[0-9]+\.perfetto-trace$`)

// isTracePath reports whether p is one of perfgate's trace files.
func isTracePath(p string) bool {
	return path.Dir(p) == traceDir && traceName.MatchString(path.Base(p))
}

// leaseOf is the lease of the trace file p.
func leaseOf(p string) string {
	return traceLeaseDir + "/" + strings.TrimSuffix(path.Base(p), ".perfetto-trace") + ".trace-lease"
}

// traceOfLease is the trace file whose lease is l, "" for a file that is
// no lease of perfgate's.
func traceOfLease(l string) string {
	name, ok := strings.CutSuffix(path.Base(l), ".trace-lease")
	p := traceDir + "/" + name + ".perfetto-trace"
	if !ok || path.Dir(l) != traceLeaseDir || !isTracePath(p) {
		return ""
	}
	return p
}

// liveTraces holds the trace files this process's sessions record, by
// serial and path: they are never leftovers to a session of this process,
// lease or not.
var liveTraces sync.Map

func traceKey(serial, p string) string { return serial + "\x00" + p }

// traceListing lists, in one round trip and in this order, the phone's
// clock, perfgate's trace files, the perfetto processes and the leases.
// A trace seen is seen with its lease: a session makes its lease before it
// starts perfetto and removes it after the file.
func traceListing() []string {
	return []string{
		"date +%s",
		"for f in " + traceDir + "/perfgate-*.perfetto-trace; do [ -f \"$f\" ] && stat -c '%Y %s %n' \"$f\"; done; true",
		"ps -A -o PID,ARGS",
		"for f in " + traceLeaseDir + "/perfgate-*.trace-lease; do [ -f \"$f\" ] && stat -c '%Y %n' \"$f\"; done; true",
	}
}

// traceFile is a trace file on the phone: its time (seconds on the phone's
// clock) and size.
type traceFile struct{ mtime, size int64 }

// deviceTraces is what the phone held of perfgate's traces at one moment.
type deviceTraces struct {
	now    int64                // the phone's clock, seconds
	files  map[string]traceFile // by path
	procs  map[string]int       // the pid of the perfetto writing each path
	leases map[string]int64     // each lease's time, by its trace's path
}

// parseTraceListing reads traceListing's output.
func parseTraceListing(out []adbx.Result) (deviceTraces, error) {
	cmds := traceListing()
	dt := deviceTraces{files: map[string]traceFile{}, procs: map[string]int{}, leases: map[string]int64{}}
	if len(out) != len(cmds) {
		return dt, fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if out[0].ExitCode != 0 {
		return dt, errors.New(failure(out[0], cmds[0]))
	}
	now, err := strconv.ParseInt(strings.TrimSpace(string(out[0].Stdout)), 10, 64)
	if err != nil || now <= 0 {
		return dt, fmt.Errorf("%s printed %q, not seconds", cmds[0], clipText(strings.TrimSpace(string(out[0].Stdout))))
	}
	dt.now = now
	for _, line := range strings.Split(string(out[1].Stdout), "\n") {
		f := strings.SplitN(strings.TrimSpace(line), " ", 3)
		if len(f) != 3 || !isTracePath(f[2]) {
			continue
		}
		mt, err1 := strconv.ParseInt(f[0], 10, 64)
		size, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			dt.files[f[2]] = traceFile{mt, size}
		}
	}
	if out[2].ExitCode != 0 {
		return dt, errors.New(failure(out[2], cmds[2]))
	}
	for pid, p := range perfettoWriters(out[2].Stdout) {
		dt.procs[p] = pid
	}
	for _, line := range strings.Split(string(out[3].Stdout), "\n") {
		f := strings.SplitN(strings.TrimSpace(line), " ", 2)
		if len(f) != 2 {
			continue
		}
		mt, err := strconv.ParseInt(f[0], 10, 64)
		if p := traceOfLease(f[1]); p != "" && err == nil {
			dt.leases[p] = mt
		}
	}
	return dt, nil
}

// perfettoWriters reads `ps -A -o PID,ARGS` for the perfetto processes
// writing one of perfgate's trace files: the file each writes, by pid.
func perfettoWriters(ps []byte) map[int]string {
	out := map[int]string{}
	for _, line := range strings.Split(string(ps), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || path.Base(f[1]) != "perfetto" {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil || pid <= 0 {
			continue
		}
		for i, a := range f[2:] {
			var p string
			switch {
			case (a == "-o" || a == "--out") && i+3 < len(f):
				p = f[i+3]
			case strings.HasPrefix(a, "--out="):
				p = strings.TrimPrefix(a, "--out=")
			}
			if isTracePath(p) {
				out[pid] = p
			}
		}
	}
	return out
}

// staleFor says, for a trace at path, how long it has been nobody's: its
// lease's age, else its file's; ok is false when it may be a live
// session's (see the top of this file).
func (dt deviceTraces) staleFor(serial, p string) (why string, ok bool) {
	if _, live := liveTraces.Load(traceKey(serial, p)); live {
		return "", false
	}
	grace := int64(traceGrace / time.Second)
	lease, leased := dt.leases[p]
	if leased && dt.now-lease < grace {
		return "", false
	}
	f, hasFile := dt.files[p]
	if hasFile && dt.now-f.mtime < grace {
		return "", false
	}
	switch {
	case leased:
		return fmt.Sprintf("its lease untouched for %v", time.Duration(dt.now-lease)*time.Second), true
	case hasFile:
		return fmt.Sprintf("no lease, the file %v old", time.Duration(dt.now-f.mtime)*time.Second), true
	}
	return "no lease, no file", true
}

// leftoverTrace is a leftover trace file this session pulls when it stops.
type leftoverTrace struct {
	path string
	why  string // why it is nobody's
}

// sweepTraces looks for what sessions that ended without cleaning up left
// on the phone (see the top of this file): it stops their perfetto,
// removes their leases, and keeps their files for pullLeftovers. It runs
// before this session starts its own perfetto; what goes wrong is a note.
func (c *collector) sweepTraces(ctx context.Context) {
	serial := c.s.dev.serial()
	out, err := c.s.dev.batch(ctx, traceListing())
	if err == nil {
		var dt deviceTraces
		dt, err = parseTraceListing(out)
		if err == nil {
			c.handleLeftovers(ctx, serial, dt)
			return
		}
	}
	c.traceNote("leftover traces of earlier sessions not looked for: %v", err)
}

// handleLeftovers acts on a listing: one round trip stops the leftover
// recordings and removes the stale leases.
func (c *collector) handleLeftovers(ctx context.Context, serial string, dt deviceTraces) {
	// says is what each command is about, after what becomes of it when
	// it succeeds.
	var cmds, says, after []string
	paths := slices.Collect(maps.Keys(dt.files))
	for p := range dt.procs {
		if _, ok := dt.files[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		why, stale := dt.staleFor(serial, p)
		if !stale {
			continue
		}
		next := "its file is gone, so there is nothing to pull"
		if _, ok := dt.files[p]; ok {
			c.tr.leftovers = append(c.tr.leftovers, leftoverTrace{path: p, why: why})
			next = "its trace is pulled when this session stops"
		}
		// A perfetto whose file is gone writes into nothing: it is
		// stopped all the same.
		if pid, ok := dt.procs[p]; ok {
			cmds = append(cmds, stopLeftoverCmd(pid, p))
			says = append(says, fmt.Sprintf("perfetto (pid %d) was still recording %s for a session that ended without stopping it (%s)", pid, p, why))
			after = append(after, next)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(dt.leases)) {
		if _, live := liveTraces.Load(traceKey(serial, p)); live || dt.now-dt.leases[p] < int64(traceGrace/time.Second) {
			continue
		}
		l := leaseOf(p)
		cmds = append(cmds, "rm -f "+shellQuote(l))
		says = append(says, fmt.Sprintf("%s, the lease of a trace no session has touched for %v", l, time.Duration(dt.now-dt.leases[p])*time.Second))
		after = append(after, "")
	}
	if len(cmds) == 0 {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	out, err := c.s.dev.batch(sctx, cmds)
	cancel()
	for i, cmd := range cmds {
		var e error
		switch {
		case err != nil:
			e = err
		case i >= len(out):
			e = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
		default:
			e = out[i].Err(cmd)
		}
		stop := strings.HasPrefix(cmd, "case ")
		switch {
		case e != nil && stop:
			c.traceNote("leftover: %s, and could not be stopped: %v", says[i], e)
		case e != nil:
			c.traceNote("leftover: %s, could not be removed: %v", says[i], e)
		case stop && strings.TrimSpace(string(out[i].Stdout)) == "gone":
			c.traceNote("leftover: %s: it ended by itself; %s", says[i], after[i])
		case stop:
			c.traceNote("leftover: %s: stopped; %s", says[i], after[i])
		default:
			c.traceNote("leftover: removed %s", says[i])
		}
	}
}

// stopLeftoverCmd stops the perfetto pid if it still records the file p,
// and waits (at most 10 s) for it to write the file and exit. It prints
// "gone" when the process ended before (its pid may be another process's
// by then, which is left alone).
func stopLeftoverCmd(pid int, p string) string {
	return fmt.Sprintf(`case "$(ps -p %d -o ARGS)" in *%s*) ;; *) echo gone; exit 0;; esac; kill -TERM %d; i=0; while kill -0 %d 2>/dev/null; do if [ $i -ge 100 ]; then echo 'perfetto (pid %d) still running 10 s after SIGTERM' >&2; exit 124; fi; i=$((i+1)); sleep 0.1; done`,
		pid, shellQuote(p), pid, pid, pid)
}

// pullLeftovers pulls the leftover trace files sweepTraces found into the
// results folder, as <name>.leftover.perfetto-trace, and removes each from
// the phone once its copy is whole. It returns the notes.
func (c *collector) pullLeftovers(ctx context.Context) []string {
	lo := c.tr.leftovers
	if len(lo) == 0 {
		return nil
	}
	cmds := []string{"ps -A -o PID,ARGS"}
	for _, l := range lo {
		cmds = append(cmds, "stat -c %s "+shellQuote(l.path))
	}
	out, err := c.s.dev.batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err == nil && out[0].ExitCode != 0 {
		err = errors.New(failure(out[0], cmds[0]))
	}
	var notes []string
	if err != nil {
		for _, l := range lo {
			notes = append(notes, fmt.Sprintf("leftover: %s (%s) not pulled: %v; it stays on the phone", l.path, l.why, err))
		}
		return notes
	}
	writing := map[string]int{}
	for pid, p := range perfettoWriters(out[0].Stdout) {
		writing[p] = pid
	}
	dir := c.cfg.resultsDir()
	for i, l := range lo {
		if pid, ok := writing[l.path]; ok {
			notes = append(notes, fmt.Sprintf("leftover: %s (%s) is still being written by perfetto (pid %d); it stays on the phone", l.path, l.why, pid))
			continue
		}
		notes = append(notes, c.pullLeftover(ctx, l, out[i+1], cmds[i+1], dir))
	}
	return notes
}

// pullLeftover pulls one leftover whose stat printed st into dir and
// removes it from the phone; it returns the note.
func (c *collector) pullLeftover(ctx context.Context, l leftoverTrace, st adbx.Result, stat, dir string) string {
	if st.ExitCode != 0 {
		if strings.Contains(string(st.Stderr)+string(st.Stdout), "No such file") {
			return fmt.Sprintf("leftover: %s (%s) is no longer on the phone (another session may have taken it)", l.path, l.why)
		}
		return fmt.Sprintf("leftover: %s (%s) not pulled: %s; it stays on the phone", l.path, l.why, failure(st, stat))
	}
	size, perr := strconv.ParseInt(strings.TrimSpace(string(st.Stdout)), 10, 64)
	if perr != nil || size < 0 {
		return fmt.Sprintf("leftover: %s (%s) not pulled: %s printed %q, not a size; it stays on the phone", l.path, l.why, stat, clipText(strings.TrimSpace(string(st.Stdout))))
	}
	took := "empty: nothing to pull"
	if size > 0 {
		base := strings.TrimSuffix(path.Base(l.path), ".perfetto-trace") + ".leftover"
		p, err := c.pullWhole(ctx, l.path, size, tracePullDeadline(size), dir, base, ".perfetto-trace", nil)
		if err != nil {
			return fmt.Sprintf("leftover: %s (%s) not pulled: %v; it stays on the phone: adb pull %s", l.path, l.why, err, l.path)
		}
		took = fmt.Sprintf("pulled into %s (%d bytes)", p, size)
	}
	rm := "rm -f " + shellQuote(l.path)
	ro, rerr := c.s.dev.batch(ctx, []string{rm})
	if rerr == nil && len(ro) == 1 {
		rerr = ro[0].Err(rm)
	}
	if rerr != nil {
		return fmt.Sprintf("leftover: %s (%s): %s, but it could not be removed from the phone: %v", l.path, l.why, took, rerr)
	}
	return fmt.Sprintf("leftover: %s (%s): %s and removed from the phone", l.path, l.why, took)
}

// pullWhole copies the device file remote into dir under the stem st (nil:
// a stem of its own, base or base.2 …, as Results are named) with
// extension ext, with deadline dl, and returns its path once the copy is
// whole: as long as the device's stat said (size; a negative size is
// unknown and not compared), written to disk (fsync) and renamed into
// place. On error nothing is left in dir.
func (c *collector) pullWhole(ctx context.Context, remote string, size int64, dl time.Duration, dir, base, ext string, st *result.Stem) (string, error) {
	cmd := "adb pull " + remote
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*"+ext)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	pctx, cancel := context.WithTimeout(ctx, dl)
	perr := c.s.dev.(puller).pull(pctx, remote, tmp)
	cancel()
	serr := tmp.Sync()
	fi, ferr := tmp.Stat()
	of := "of unknown size"
	if size >= 0 {
		of = fmt.Sprintf("of %d bytes by stat -c %%s", size)
	}
	if err := errors.Join(perr, serr, ferr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s (%s, deadline %v): %w", cmd, of, dl.Round(time.Second), err)
	}
	if size >= 0 && fi.Size() != size {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s (%s, deadline %v): the pull ended short: the copy has %d bytes", cmd, of, dl.Round(time.Second), fi.Size())
	}
	p, err := st.Claim(dir, base, ext, tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%s into %s: %w", cmd, dir, err)
	}
	syncDir(dir)
	return p, nil
}

// syncDir writes a folder's entries to disk, so that a file renamed into
// it outlasts a crash of the host. Some systems cannot sync a folder
// (Windows); the file itself is synced all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// traceLease keeps a session's lease fresh: it touches the lease every
// traceLeaseEvery until released.
type traceLease struct {
	path string
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	failed int
	first  error
}

// holdLease starts touching the lease l; tick gives the times (a
// time.Ticker's channel outside tests).
func (c *collector) holdLease(l string, tick <-chan time.Time) *traceLease {
	h := &traceLease{path: l, stop: make(chan struct{}), done: make(chan struct{})}
	touch := "touch " + shellQuote(l)
	go func() {
		defer close(h.done)
		for {
			select {
			case <-h.stop:
				return
			case <-tick:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			out, err := c.s.dev.batch(ctx, []string{touch})
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
func (h *traceLease) release() string {
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

// releaseTrace ends the session's claim on its trace: it stops touching the
// lease, then removes the lease and, when removeFile says the trace is
// safe on the host (or held nothing), the trace file, in one round trip.
// It returns the notes.
func (c *collector) releaseTrace(ctx context.Context, removeFile bool) []string {
	tr := c.tr
	var notes []string
	if tr.leaseTicker != nil {
		tr.leaseTicker.Stop()
	}
	if n := tr.lease.release(); n != "" {
		notes = append(notes, n)
	}
	tr.lease, tr.leaseTicker = nil, nil
	defer liveTraces.Delete(traceKey(c.s.dev.serial(), tr.remote))
	var cmds []string
	if removeFile {
		cmds = append(cmds, "rm -f "+shellQuote(tr.remote))
	}
	if tr.leasePath != "" {
		cmds = append(cmds, "rm -f "+shellQuote(tr.leasePath))
	}
	if len(cmds) == 0 {
		return notes
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	out, err := c.s.dev.batch(rctx, cmds)
	cancel()
	if err != nil {
		return append(notes, fmt.Sprintf("%s: %v", strings.Join(cmds, "; "), err))
	}
	for i, cmd := range cmds {
		if i < len(out) && out[i].ExitCode != 0 {
			notes = append(notes, failure(out[i], cmd))
		}
	}
	return notes
}
