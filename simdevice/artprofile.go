package simdevice

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/format"
	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// artProfile is one `am profile start --sampling` running in the app.
type artProfile struct {
	pid        int
	file       string
	intervalUs int64
	start      int64
}

// idleStack is the main thread's stack while its Looper waits for a
// message, as ART's sampling profiler sees it.
var idleStack = stackOf(looperBase[:6], []string{"android.os.MessageQueue.next", "android.os.MessageQueue.nativePollOnce"})

// amException prints what `am` prints when ActivityManager throws.
func amException(stderr io.Writer, cmd, exception string) int {
	fmt.Fprintf(stderr, "Exception occurred while executing '%s':\n%s\n\tat com.android.server.am.ActivityManagerService.profileControl(ActivityManagerService.java:17384)\n\tat com.android.server.am.ActivityManagerShellCommand.runProfile(ActivityManagerShellCommand.java:1071)\n", cmd, exception)
	return 255
}

// amProfile runs `am profile start [--user U] [--sampling µs] PROCESS FILE`
// and `am profile stop [--user U] PROCESS`, which the app's runtime answers
// by writing an ART method trace (see format.ARTTrace) of its main thread,
// sampled every µs (default 1000), when profiling stops. Only a debuggable
// app may be profiled (or any, as root).
func (w *World) amProfile(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "start" && args[0] != "stop") {
		fmt.Fprintln(stderr, "Error: Profile command start or stop not specified")
		return 255
	}
	op := args[0]
	interval := int64(1000)
	var rest []string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; a {
		case "--user":
			i++
		case "--sampling":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "Error: No sampling interval specified")
				return 255
			}
			i++
			n, err := strconv.ParseInt(args[i], 10, 64)
			if err != nil || n <= 0 {
				return amException(stderr, "profile", "java.lang.NumberFormatException: For input string: \""+args[i]+"\"")
			}
			interval = n
		case "--streaming":
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "Error: Unknown option: %s\n", a)
				return 255
			}
			rest = append(rest, a)
		}
	}
	if op == "start" && len(rest) != 2 || op == "stop" && len(rest) != 1 {
		fmt.Fprintln(stderr, "Error: no process or file specified")
		return 255
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	a, code := w.debuggableAppLocked(rest[0], func(e string) int { return amException(stderr, "profile", e) })
	if a == nil {
		return code
	}
	if op == "start" {
		file := vfs.Clean(rest[1], "/")
		if w.files == nil || w.files.WriteFile(file, nil, 0o644, w.bootWall.Add(time.Duration(w.now)), false) != nil {
			fmt.Fprintf(stderr, "Error: Unable to open file: %s\nConsider using a file under /data/local/tmp/\n", rest[1])
			return 1
		}
		w.artProf = &artProfile{pid: a.pid, file: file, intervalUs: interval, start: w.now}
		return 0
	}
	p := w.artProf
	if p == nil || p.pid != a.pid {
		return 0 // the runtime ignores a stop without a profile
	}
	w.artProf = nil
	w.files.WriteFile(p.file, w.artTraceLocked(p, w.now), 0o644, w.bootWall.Add(time.Duration(w.now)), false)
	return 0
}

// artTraceLocked samples the main thread of profile p every interval up to
// to: its stack where it ran (w.runs), the Looper's wait where it did not.
func (w *World) artTraceLocked(p *artProfile, to int64) []byte {
	var methods []string
	ids := map[string]uint32{}
	id := func(m string) uint32 {
		if v, ok := ids[m]; ok {
			return v
		}
		v := uint32(len(methods)) << 2
		ids[m] = v
		i := strings.LastIndexByte(m, '.')
		class, name := m[:max(i, 0)], m[i+1:]
		file := class[strings.LastIndexByte(class, '.')+1:]
		file, _, _ = strings.Cut(file, "$")
		methods = append(methods, class+"\t"+name+"\t()V\t"+file+".java")
		return v
	}
	var runs []mainRun
	for _, r := range w.runs {
		if r.pid == p.pid && r.end > p.start && r.start < to {
			runs = append(runs, r)
		}
	}
	var recs []format.ARTRecord
	var prev []string
	k := 0
	step := p.intervalUs * 1000
	for t := p.start + step; t < to; t += step {
		for k < len(runs) && runs[k].end <= t {
			k++
		}
		stack := idleStack
		if k < len(runs) && runs[k].start <= t {
			stack = runs[k].stack
		}
		// ART's diff of two samples: exits of the old frames above the
		// common base, innermost first, then entries of the new ones.
		common := 0
		for common < len(prev) && common < len(stack) && prev[common] == stack[common] {
			common++
		}
		us := uint32((t - p.start) / 1000)
		for i := len(prev) - 1; i >= common; i-- {
			recs = append(recs, format.ARTRecord{TID: uint16(p.pid), Method: id(prev[i]), Exit: true, Us: us})
		}
		for _, m := range stack[common:] {
			recs = append(recs, format.ARTRecord{TID: uint16(p.pid), Method: id(m), Us: us})
		}
		prev = slices.Clone(stack)
	}
	return format.ARTTrace(p.pid, uint64(p.start/1000), uint64((to-p.start)/1000), map[int]string{p.pid: "main"}, []int{p.pid}, methods, recs)
}
