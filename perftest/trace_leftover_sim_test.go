package perftest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

const (
	traceDir = "/data/misc/perfetto-traces"
	leaseDir = "/data/local/tmp"
)

// simSh runs a command line on the simulated phone and returns its
// standard output; the test fails when it exits non-zero.
func simSh(t *testing.T, dev *simdevice.Device, cmd, stdin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	if st := dev.Shell(ctx, cmd, strings.NewReader(stdin), &out, &errb); st != 0 {
		t.Fatalf("%s: exit status %d: %s", cmd, st, errb.String())
	}
	return out.String()
}

// onPhone reports whether the phone has the file p, and its size.
func onPhone(dev *simdevice.Device, p string) (int64, bool) {
	fi, err := dev.Stat(p)
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}

// traceFiles lists the trace files, finished or not, in a results folder.
func traceFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".perfetto-trace") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A pull that fails, or that ends short though adb says it went well,
// leaves the trace on the phone, and the Result says where it is, which
// command failed and how, and the pull's deadline; nothing half-copied is
// left in the results folder, and the trace's lease is gone.
func TestTracePullFailsKeepsDeviceFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		q    simdevice.Quirks
		want *regexp.Regexp // in NotRecorded
	}{
		{name: "broken", q: simdevice.Quirks{BrokenPulls: []string{traceDir + "/perfgate-*"}},
			want: regexp.MustCompile(`^adb pull (\S+) \(of ([0-9]+) bytes by stat -c %s, deadline 2m[0-9]+s\): .*input/output error.*; the trace stays on the phone: adb pull (\S+)$`)},
		{name: "short", q: simdevice.Quirks{ShortPulls: []string{traceDir + "/perfgate-*"}},
			want: regexp.MustCompile(`^adb pull (\S+) \(of ([0-9]+) bytes by stat -c %s, deadline 2m[0-9]+s\): the pull ended short: the copy has [0-9]+ bytes; the trace stays on the phone: adb pull (\S+)$`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) {
				dev, r, st := traceSession(t, 33, tc.q, 5, perftest.TraceConfig{})
				info := r.Trace
				if info == nil || info.File != "" || info.DeviceFile == "" {
					t.Fatalf("trace %+v", info)
				}
				m := tc.want.FindStringSubmatch(info.NotRecorded)
				if m == nil || m[1] != info.DeviceFile || m[3] != info.DeviceFile {
					t.Fatalf("not recorded: %q, want it to match %s with %s", info.NotRecorded, tc.want, info.DeviceFile)
				}
				size, ok := onPhone(dev, info.DeviceFile)
				if !ok || size == 0 || fmt.Sprint(size) != m[2] {
					t.Errorf("the trace on the phone: %d bytes (there %v); the note says %s", size, ok, m[2])
				}
				lease := leaseDir + "/" + strings.TrimSuffix(filepath.Base(info.DeviceFile), ".perfetto-trace") + ".trace-lease"
				if _, ok := onPhone(dev, lease); ok {
					t.Errorf("the lease %s stays", lease)
				}
				if !slices.Contains(r.Notes, "trace: not recorded: "+info.NotRecorded) {
					t.Errorf("notes %q", r.Notes)
				}
				if fs := traceFiles(t, filepath.Dir(r.Path)); len(fs) > 0 {
					t.Errorf("the results folder holds %q", fs)
				}
				absent(t, st, []metrics.Name{metrics.JankFrameTimeline}, "trace: adb pull "+info.DeviceFile)
			})
		})
	}
}

// plantConfig is a trace config as a dead session's perfetto may run.
const plantConfig = `duration_ms: 1800000 buffers { size_kb: 2048 fill_policy: RING_BUFFER } data_sources { config { name: "linux.ftrace" ftrace_config { ftrace_events: "sched/sched_switch" } } } data_sources { config { name: "linux.process_stats" } }`

// plantTrace starts perfetto on the phone as a session does, for the
// trace perfgate-<pkg>-<n>, and returns its file and pid.
func plantTrace(t *testing.T, dev *simdevice.Device, n string) (string, string) {
	t.Helper()
	f := traceDir + "/perfgate-" + pkg + "-" + n + ".perfetto-trace"
	pid := strings.TrimSpace(simSh(t, dev, "perfetto --txt -c - -o "+f+" --background-wait", plantConfig))
	return f, pid
}

// age sets the files' times minutes back on the phone's clock.
func age(t *testing.T, dev *simdevice.Device, minutes int, files ...string) {
	t.Helper()
	simSh(t, dev, fmt.Sprintf("touch -d @$(( $(date +%%s) - %d )) %s", minutes*60, strings.Join(files, " ")), "")
}

// running reports whether perfetto pid runs.
func running(t *testing.T, dev *simdevice.Device, pid string) bool {
	t.Helper()
	return dev.Shell(context.Background(), "kill -0 "+pid, nil, nil, nil) == 0
}

// What sessions that died left on the phone, the next session with a
// trace stops and takes, and says so: a perfetto still recording a trace
// whose lease nobody touched for 25 min is stopped and its file pulled
// into the results folder and removed; an old trace without a lease, the
// same; a lease nobody touched is removed. What may be a live session's
// stays as it is: a trace younger than the grace period, one whose lease
// was touched a minute ago (an old file, or a perfetto recording for
// half an hour), and files that are not perfgate's.
func TestTraceLeftoversTakenByNextSession(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("smooth-scroll")
		if err != nil {
			t.Fatal(err)
		}
		dev, d := simWorkload(t, wl, 33, simdevice.Quirks{})
		lease := func(f string) string {
			return leaseDir + "/" + strings.TrimSuffix(filepath.Base(f), ".perfetto-trace") + ".trace-lease"
		}
		// A session killed 25 min ago: perfetto records on, its lease untouched.
		killed, killedPid := plantTrace(t, dev, "111")
		simSh(t, dev, "touch "+lease(killed), "")
		age(t, dev, 25, killed, lease(killed))
		// A trace left 20 min ago, with no lease.
		old := traceDir + "/perfgate-" + pkg + "-222.perfetto-trace"
		oldPid := strings.TrimSpace(simSh(t, dev, "perfetto --txt -c - -o "+old+" --background-wait", plantConfig))
		simSh(t, dev, "kill -TERM "+oldPid+"; while kill -0 "+oldPid+" 2>/dev/null; do sleep 0.01; done", "")
		oldSize, _ := onPhone(dev, old)
		age(t, dev, 20, old)
		// A lease whose session is long gone.
		orphan := leaseDir + "/perfgate-" + pkg + "-333.trace-lease"
		simSh(t, dev, "touch "+orphan, "")
		age(t, dev, 30, orphan)
		// What stays: a trace 2 min old without a lease; an old trace whose
		// lease is fresh; a perfetto recording for 30 min whose lease is
		// fresh; another tool's old trace.
		young := traceDir + "/perfgate-" + pkg + "-444.perfetto-trace"
		simSh(t, dev, "perfetto --txt -c - -o "+young+" --background-wait | (read p; kill -TERM $p; while kill -0 $p 2>/dev/null; do sleep 0.01; done)", plantConfig)
		age(t, dev, 2, young)
		leased := traceDir + "/perfgate-" + pkg + "-555.perfetto-trace"
		simSh(t, dev, "perfetto --txt -c - -o "+leased+" --background-wait | (read p; kill -TERM $p; while kill -0 $p 2>/dev/null; do sleep 0.01; done); touch "+lease(leased), plantConfig)
		age(t, dev, 40, leased)
		live, livePid := plantTrace(t, dev, "666")
		simSh(t, dev, "touch "+lease(live), "")
		age(t, dev, 30, live)
		other := traceDir + "/other.perfetto-trace"
		simSh(t, dev, "perfetto --txt -c - -o "+other+" --background-wait | (read p; kill -TERM $p; while kill -0 $p 2>/dev/null; do sleep 0.01; done)", plantConfig)
		age(t, dev, 60, other)
		stays := map[string]string{}
		for _, f := range []string{young, leased, lease(leased), live, lease(live), other} {
			stays[f] = simSh(t, dev, "stat -c '%Y %s' "+f, "")
		}

		tk := newTicker()
		cfg := quirkConfig(t, tk)
		cfg.Trace = &perftest.TraceConfig{}
		r, early := tickStep(t, d, cfg, tk, "scroll", 3)
		if early != "" {
			t.Skip(early)
		}
		if r.Trace == nil || r.Trace.File == "" {
			t.Fatalf("the session's own trace: %+v", r.Trace)
		}
		dir := filepath.Dir(r.Path)

		// The killed session's perfetto was stopped, its trace taken.
		if running(t, dev, killedPid) {
			t.Errorf("the killed session's perfetto (pid %s) still runs", killedPid)
		}
		for _, tc := range []struct {
			file, pid string
			size      int64
		}{{killed, killedPid, -1}, {old, "", oldSize}} {
			base := strings.TrimSuffix(filepath.Base(tc.file), ".perfetto-trace")
			if _, ok := onPhone(dev, tc.file); ok {
				t.Errorf("%s stays on the phone", tc.file)
			}
			got := filepath.Join(dir, base+".leftover.perfetto-trace")
			fi, err := os.Stat(got)
			if err != nil || fi.Size() == 0 || (tc.size >= 0 && fi.Size() != tc.size) {
				t.Errorf("the leftover %s in the results folder: %v, %v (the phone had %d bytes)", got, fi, err, tc.size)
				continue
			}
			why := "(no lease, the file 20m"
			if tc.pid != "" {
				why = "(its lease untouched for 25m"
				stopped := fmt.Sprintf("trace: leftover: perfetto (pid %s) was still recording %s for a session that ended without stopping it %s", tc.pid, tc.file, why)
				if !slices.ContainsFunc(r.Notes, func(n string) bool {
					return strings.HasPrefix(n, stopped) && strings.HasSuffix(n, "): stopped; its trace is pulled when this session stops")
				}) {
					t.Errorf("no note %q…: %q", stopped, r.Notes)
				}
			}
			pulled := fmt.Sprintf("): pulled into %s (%d bytes) and removed from the phone", got, fi.Size())
			if !slices.ContainsFunc(r.Notes, func(n string) bool {
				return strings.HasPrefix(n, "trace: leftover: "+tc.file+" "+why) && strings.HasSuffix(n, pulled)
			}) {
				t.Errorf("no note \"trace: leftover: %s %s…%s\": %q", tc.file, why, pulled, r.Notes)
			}
		}
		if _, ok := onPhone(dev, lease(killed)); ok {
			t.Errorf("the killed session's lease stays")
		}
		if _, ok := onPhone(dev, orphan); ok || !slices.ContainsFunc(r.Notes, func(n string) bool {
			return strings.HasPrefix(n, "trace: leftover: removed "+orphan+", the lease of a trace no session has touched for 30m")
		}) {
			t.Errorf("the orphan lease: on the phone %v; notes %q", ok, r.Notes)
		}

		// What may be a live session's is untouched, and no note names it.
		for f, was := range stays {
			if now := simSh(t, dev, "stat -c '%Y %s' "+f, ""); now != was {
				t.Errorf("%s: %q, before the session %q", f, now, was)
			}
			for _, n := range r.Notes {
				if strings.Contains(n, filepath.Base(f)) {
					t.Errorf("a note names %s: %q", f, n)
				}
			}
		}
		if !running(t, dev, livePid) {
			t.Errorf("the live session's perfetto (pid %s) was stopped", livePid)
		}
		if fs := traceFiles(t, dir); len(fs) != 3 {
			t.Errorf("the results folder holds %q: want the session's trace and two leftovers", fs)
		}
		// The session's own trace and lease are gone from the phone.
		if _, ok := onPhone(dev, r.Trace.DeviceFile); ok {
			t.Errorf("the session's trace %s stays on the phone", r.Trace.DeviceFile)
		}
		if _, ok := onPhone(dev, lease(r.Trace.DeviceFile)); ok {
			t.Errorf("the session's lease stays on the phone")
		}
	})
}

// Two sessions on one phone at once: the second, starting while the
// first's trace has run for half an hour, leaves it alone, and each gets
// its own trace whole.
func TestTraceConcurrentSessions(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("smooth-scroll")
		if err != nil {
			t.Fatal(err)
		}
		dev, d := simWorkload(t, wl, 33, simdevice.Quirks{})
		tk := newTicker()
		cfgA := quirkConfig(t, tk)
		cfgA.Name += "/A"
		cfgA.Trace = &perftest.TraceConfig{}
		rtA := &recT{}
		a := perftest.Start(rtA, d, perftest.WithConfig(cfgA))
		if a == nil {
			t.Fatalf("start A: %s", rtA.joined())
		}
		files := strings.Fields(simSh(t, dev, "ls "+traceDir, ""))
		if len(files) != 1 {
			t.Fatalf("the phone has traces %q, want A's alone", files)
		}
		fileA := traceDir + "/" + files[0]
		age(t, dev, 30, fileA)

		tkB := newTicker()
		cfgB := quirkConfig(t, tkB)
		cfgB.Name += "/B"
		cfgB.Trace = &perftest.TraceConfig{}
		rB, early := tickStep(t, d, cfgB, tkB, "scroll", 3)
		a.Begin("scroll")
		tk.wait(t, 2)
		a.End()
		rA := a.Stop()
		if early != "" {
			t.Skip(early)
		}
		if rep := rtA.joined(); rep != "" {
			t.Errorf("A reported: %s", rep)
		}
		for name, r := range map[string]*result.Result{"A": rA, "B": rB} {
			if r.Trace == nil || r.Trace.File == "" || r.Trace.NotRecorded != "" {
				t.Errorf("%s's trace: %+v", name, r.Trace)
			}
			for _, n := range r.Notes {
				if strings.Contains(n, "leftover") {
					t.Errorf("%s: %q", name, n)
				}
			}
		}
		if rA.Trace.DeviceFile != fileA {
			t.Errorf("A's trace %s, the phone had %s", rA.Trace.DeviceFile, fileA)
		}
		if left := strings.TrimSpace(simSh(t, dev, "ls "+traceDir+" "+leaseDir, "")); strings.Contains(left, "perfgate-") {
			t.Errorf("left on the phone: %q", left)
		}
	})
}
