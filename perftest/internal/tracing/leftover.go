package tracing

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// What a session's trace leaves on a phone, and how a later session finds
// what an earlier one left.
//
// Every trace file perfgate has perfetto write is named
// /data/misc/perfetto-traces/perfgate-<package>-<n>.perfetto-trace, and
// while its session runs, the session holds a lease on it: the file
// /data/local/tmp/perfgate-<package>-<n>.trace-lease, made before perfetto
// starts and touched every leaseEvery until the trace is off the
// phone. (The lease is a file of its own because the shell user may read
// and remove perfetto's files but not change their times.) A session that
// dies without stopping (SIGKILL, a host that crashed) stops touching its
// lease, and its perfetto records on until its MaxDuration, its file
// staying behind.
//
// When a session with a trace starts, it lists the perfgate-* traces on
// the phone, the perfetto processes writing one (ps -o ARGS names the file)
// and the leases, on the phone's own clock. A trace is a leftover when no
// session of this process records it and either its lease was not
// touched within devcmd.LeftoverGrace, or it has no lease and its file,
// when there is one, is older than devcmd.LeftoverGrace: a session running
// at the same time, here or on another host, touches its lease every
// minute until its trace is off the phone, so a stale lease is a dead
// session's however recently its perfetto wrote the file; without a lease,
// a file younger than the grace period may be one whose session is about
// to make or take it. A leftover that perfetto
// still records is stopped at once (its recording would take the tracing
// service's resources from this session's); leftover files are pulled
// when this session stops, after its own trace and outside its
// measurements, into the results folder as
// <name>.leftover.perfetto-trace, and removed from the phone once the copy
// is whole. A lease nobody touched within the grace period is removed.
// Each of these is a note of the Result.

// leaseEvery is how often a session touches its lease: a tenth of
// devcmd.LeftoverGrace, how long a lease or a trace file nobody touched
// stays another session's.
const leaseEvery = devcmd.LeftoverGrace / 10

// traceName matches the names of perfgate's trace files.
var traceName = regexp.MustCompile(`^perfgate-[A-Za-z][A-Za-z0-9_.]*-[0-9]+\.perfetto-trace$`)

// isTracePath reports whether p is one of perfgate's trace files.
func isTracePath(p string) bool {
	return path.Dir(p) == traceDir && traceName.MatchString(path.Base(p))
}

// leaseOf is the lease of the trace file p.
func leaseOf(p string) string {
	return devcmd.TmpDir + "/" + strings.TrimSuffix(path.Base(p), ".perfetto-trace") + ".trace-lease"
}

// traceOfLease is the trace file whose lease is l, "" for a file that is
// no lease of perfgate's.
func traceOfLease(l string) string {
	name, ok := strings.CutSuffix(path.Base(l), ".trace-lease")
	p := traceDir + "/" + name + ".perfetto-trace"
	if !ok || path.Dir(l) != devcmd.TmpDir || !isTracePath(p) {
		return ""
	}
	return p
}

// traceListing lists, in one round trip and in this order, the phone's
// clock, perfgate's trace files, the perfetto processes and the leases.
// A trace seen is seen with its lease: a session makes its lease before it
// starts perfetto and removes it after the file.
func traceListing() []string {
	return []string{
		"date +%s",
		"for f in " + traceDir + "/perfgate-*.perfetto-trace; do [ -f \"$f\" ] && stat -c '%Y %s %n' \"$f\"; done; true",
		"ps -A -o PID,ARGS",
		"for f in " + devcmd.TmpDir + "/perfgate-*.trace-lease; do [ -f \"$f\" ] && stat -c '%Y %n' \"$f\"; done; true",
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
		return dt, errors.New(devcmd.Failure(out[0], cmds[0]))
	}
	now, err := strconv.ParseInt(strings.TrimSpace(string(out[0].Stdout)), 10, 64)
	if err != nil || now <= 0 {
		return dt, fmt.Errorf("%s printed %q, not seconds", cmds[0], devcmd.Clip(strings.TrimSpace(string(out[0].Stdout))))
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
		return dt, errors.New(devcmd.Failure(out[2], cmds[2]))
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
	grace := int64(devcmd.LeftoverGrace / time.Second)
	if lease, leased := dt.leases[p]; leased {
		// A live session touches its lease every leaseEvery until its
		// trace is off the phone: a lease that old is a dead session's,
		// however recently a perfetto it left wrote the file.
		if dt.now-lease < grace {
			return "", false
		}
		return fmt.Sprintf("its lease untouched for %v", time.Duration(dt.now-lease)*time.Second), true
	}
	f, hasFile := dt.files[p]
	if hasFile && dt.now-f.mtime < grace {
		return "", false
	}
	switch {
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

// sweep looks for what sessions that ended without cleaning up left
// on the phone (see the top of this file): it stops their perfetto,
// removes their leases, and keeps their files for pullLeftovers. It runs
// before this session starts its own perfetto; what goes wrong is a note.
func (r *Recorder) sweep(ctx context.Context) {
	out, err := r.env.Batch(ctx, traceListing())
	if err == nil {
		var dt deviceTraces
		dt, err = parseTraceListing(out)
		if err == nil {
			r.handleLeftovers(ctx, dt)
			return
		}
	}
	r.note("leftover traces of earlier sessions not looked for: %v", err)
}

// handleLeftovers acts on a listing: one round trip stops the leftover
// recordings and removes the stale leases.
func (r *Recorder) handleLeftovers(ctx context.Context, dt deviceTraces) {
	serial := r.env.Serial
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
			r.leftovers = append(r.leftovers, leftoverTrace{path: p, why: why})
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
		if _, live := liveTraces.Load(traceKey(serial, p)); live || dt.now-dt.leases[p] < int64(devcmd.LeftoverGrace/time.Second) {
			continue
		}
		l := leaseOf(p)
		cmds = append(cmds, "rm -f "+adbx.Quote(l))
		says = append(says, fmt.Sprintf("%s, the lease of a trace no session has touched for %v", l, time.Duration(dt.now-dt.leases[p])*time.Second))
		after = append(after, "")
	}
	if len(cmds) == 0 {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	out, err := r.env.Batch(sctx, cmds)
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
			r.note("leftover: %s, and could not be stopped: %v", says[i], e)
		case e != nil:
			r.note("leftover: %s, could not be removed: %v", says[i], e)
		case stop && strings.TrimSpace(string(out[i].Stdout)) == "gone":
			r.note("leftover: %s: it ended by itself; %s", says[i], after[i])
		case stop:
			r.note("leftover: %s: stopped; %s", says[i], after[i])
		default:
			r.note("leftover: removed %s", says[i])
		}
	}
}

// stopLeftoverCmd stops the perfetto pid if it still records the file p,
// and waits (at most 10 s) for it to write the file and exit. It prints
// "gone" when the process ended before (its pid may be another process's
// by then, which is left alone).
func stopLeftoverCmd(pid int, p string) string {
	return fmt.Sprintf(`case "$(ps -p %d -o ARGS)" in *%s*) ;; *) echo gone; exit 0;; esac; kill -TERM %d; i=0; while kill -0 %d 2>/dev/null; do if [ $i -ge 100 ]; then echo 'perfetto (pid %d) still running 10 s after SIGTERM' >&2; exit 124; fi; i=$((i+1)); sleep 0.1; done`,
		pid, adbx.Quote(p), pid, pid, pid)
}

// pullLeftovers pulls the leftover trace files sweep found into the
// results folder dir, as <name>.leftover.perfetto-trace, and removes each
// from the phone once its copy is whole. It returns the notes.
func (r *Recorder) pullLeftovers(ctx context.Context, dir string) []string {
	lo := r.leftovers
	if len(lo) == 0 {
		return nil
	}
	cmds := []string{"ps -A -o PID,ARGS"}
	for _, l := range lo {
		cmds = append(cmds, "stat -c %s "+adbx.Quote(l.path))
	}
	out, err := r.env.Batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err == nil && out[0].ExitCode != 0 {
		err = errors.New(devcmd.Failure(out[0], cmds[0]))
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
	for i, l := range lo {
		if pid, ok := writing[l.path]; ok {
			notes = append(notes, fmt.Sprintf("leftover: %s (%s) is still being written by perfetto (pid %d); it stays on the phone", l.path, l.why, pid))
			continue
		}
		notes = append(notes, r.pullLeftover(ctx, l, out[i+1], cmds[i+1], dir))
	}
	return notes
}

// pullLeftover pulls one leftover whose stat printed st and removes it
// from the phone; it returns the note.
func (r *Recorder) pullLeftover(ctx context.Context, l leftoverTrace, st adbx.Result, stat, dir string) string {
	if st.ExitCode != 0 {
		if strings.Contains(string(st.Stderr)+string(st.Stdout), "No such file") {
			return fmt.Sprintf("leftover: %s (%s) is no longer on the phone (another session may have taken it)", l.path, l.why)
		}
		return fmt.Sprintf("leftover: %s (%s) not pulled: %s; it stays on the phone", l.path, l.why, devcmd.Failure(st, stat))
	}
	size, perr := strconv.ParseInt(strings.TrimSpace(string(st.Stdout)), 10, 64)
	if perr != nil || size < 0 {
		return fmt.Sprintf("leftover: %s (%s) not pulled: %s printed %q, not a size; it stays on the phone", l.path, l.why, stat, devcmd.Clip(strings.TrimSpace(string(st.Stdout))))
	}
	took := "empty: nothing to pull"
	if size > 0 {
		base := strings.TrimSuffix(path.Base(l.path), ".perfetto-trace") + ".leftover"
		p, err := r.pullWhole(ctx, l.path, size, pullDeadline(size), dir, base, ".perfetto-trace", nil)
		if err != nil {
			return fmt.Sprintf("leftover: %s (%s) not pulled: %v; it stays on the phone: adb pull %s", l.path, l.why, err, l.path)
		}
		took = fmt.Sprintf("pulled into %s (%d bytes)", p, size)
	}
	rm := "rm -f " + adbx.Quote(l.path)
	ro, rerr := r.env.Batch(ctx, []string{rm})
	if rerr == nil && len(ro) == 1 {
		rerr = ro[0].Err(rm)
	}
	if rerr != nil {
		return fmt.Sprintf("leftover: %s (%s): %s, but it could not be removed from the phone: %v", l.path, l.why, took, rerr)
	}
	return fmt.Sprintf("leftover: %s (%s): %s and removed from the phone", l.path, l.why, took)
}
