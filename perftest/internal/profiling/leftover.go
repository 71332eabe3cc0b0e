package profiling

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// What the profiler leaves on a phone, and how a later session finds it.
//
// A session's profiler writes its samples to
// /data/local/tmp/perfgate-<16 hex digits>.data (simpleperf) or .trace
// (ART's profiler), and Stop removes the file once it has read it. A
// session that dies between (SIGKILL, a crashed host) leaves the file. So
// a session that samples stacks lists, in the round trip that picks its
// profiler, the phone's clock, those files and the processes: a file is a
// leftover when no running simpleperf writes it and it is older than
// devcmd.LeftoverGrace (a live recording's file is read and removed within
// seconds of its recording's end). Leftovers are removed, each with a note: the
// samples of a session that never stopped belong to no Result.

// profFile matches the profiler files of perfgate's sessions.
var profFile = regexp.MustCompile(`^` + devcmd.TmpDir + `/perfgate-[0-9a-f]{16}\.(data|trace)$`)

// profilerListing lists the phone's clock, perfgate's profiler files
// (time and path) and the processes.
func profilerListing() []string {
	return []string{
		"date +%s",
		"for f in " + devcmd.TmpDir + "/perfgate-*.data " + devcmd.TmpDir + "/perfgate-*.trace; do [ -f \"$f\" ] && stat -c '%Y %n' \"$f\"; done; true",
		"ps -A -o PID,ARGS",
	}
}

// profilerLeftovers reads profilerListing's output: each leftover file,
// with how long nobody has touched it. Output it cannot read gives none,
// and why.
func profilerLeftovers(out []adbx.Result) (map[string]time.Duration, string) {
	cmds := profilerListing()
	if len(out) != len(cmds) {
		return nil, fmt.Sprintf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	for _, i := range []int{0, 2} {
		if out[i].ExitCode != 0 {
			return nil, devcmd.Failure(out[i], cmds[i])
		}
	}
	text := strings.TrimSpace(string(out[0].Stdout))
	now, err := strconv.ParseInt(text, 10, 64)
	if err != nil || now <= 0 {
		return nil, fmt.Sprintf("%s printed %q, not the seconds since 1970", cmds[0], devcmd.Clip(text))
	}
	// A file a recorder writes is its recording's, however old.
	written := map[string]bool{}
	for _, line := range strings.Split(string(out[2].Stdout), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || path.Base(f[1]) != "simpleperf" {
			continue
		}
		for i, a := range f[2:] {
			if a == "-o" && i+3 < len(f) {
				written[f[i+3]] = true
			}
		}
	}
	left := map[string]time.Duration{}
	for _, line := range strings.Split(string(out[1].Stdout), "\n") {
		f := strings.SplitN(strings.TrimSpace(line), " ", 2)
		if len(f) != 2 || !profFile.MatchString(f[1]) || written[f[1]] {
			continue
		}
		mt, err := strconv.ParseInt(f[0], 10, 64)
		if age := time.Duration(now-mt) * time.Second; err == nil && age >= devcmd.LeftoverGrace {
			left[f[1]] = age
		}
	}
	return left, ""
}

// removeLeftovers removes the leftover profiler files that
// profilerListing's output out shows, with a note for each.
func (p *Profiler) removeLeftovers(ctx context.Context, out []adbx.Result, note devcmd.Note) {
	left, why := profilerLeftovers(out)
	if why != "" {
		note("stacks: leftover: the profiler files of earlier sessions were not looked for: %s", why)
	}
	if len(left) == 0 {
		return
	}
	files := slices.Sorted(func(yield func(string) bool) {
		for f := range left {
			if !yield(f) {
				return
			}
		}
	})
	cmd := "rm -f"
	for _, f := range files {
		cmd += " " + adbx.Quote(f)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	res, err := p.batch(rctx, []string{cmd})
	cancel()
	if err == nil && (len(res) != 1 || res[0].ExitCode != 0) {
		if len(res) == 1 {
			err = fmt.Errorf("%s", devcmd.Failure(res[0], cmd))
		} else {
			err = fmt.Errorf("batch of 1 command returned %d results", len(res))
		}
	}
	for _, f := range files {
		if err != nil {
			note("stacks: leftover: %s, a profiler's file of an earlier session that ended without removing it (untouched for %v), could not be removed: %v", f, left[f], err)
			continue
		}
		note("stacks: leftover: removed %s, a profiler's file of an earlier session that ended without removing it (untouched for %v)", f, left[f])
	}
}
