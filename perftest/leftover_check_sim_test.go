package perftest_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// phoneState is what a session may change on the janky-feed phone.
type phoneState struct {
	prop   string   // the Looper property ("" unset)
	mark   []string // the files of the property's mark
	traces []string // perfgate's traces
	tmp    []string // perfgate's files in /data/local/tmp: leases, profiler files
	procs  []string // perfetto and simpleperf processes
}

func readPhone(t *testing.T, dev *simdevice.Device) phoneState {
	t.Helper()
	var st phoneState
	st.prop, _ = dev.World().Prop(looperProp)
	for name := range markFiles(t, dev) {
		st.mark = append(st.mark, name)
	}
	slices.Sort(st.mark)
	list := func(dir, prefix string) []string {
		var out []string
		for _, f := range strings.Fields(simSh(t, dev, "ls "+dir, "")) {
			if strings.HasPrefix(f, prefix) {
				out = append(out, dir+"/"+f)
			}
		}
		return out
	}
	st.traces = list(traceDir, "perfgate-")
	st.tmp = list(leaseDir, "perfgate-")
	for _, l := range strings.Split(simSh(t, dev, "ps -A -o PID,ARGS", ""), "\n") {
		if strings.Contains(l, "perfetto") || strings.Contains(l, "simpleperf") {
			st.procs = append(st.procs, strings.TrimSpace(l))
		}
	}
	return st
}

func (st phoneState) String() string {
	return fmt.Sprintf("property %q, mark %q, traces %q, files %q, processes %q", st.prop, st.mark, st.traces, st.tmp, st.procs)
}

// cleanedByNext checks what an earlier session left on the phone dev: the
// next session through d, after the earlier one's leases ran out on the
// phone's clocks (the Looper mark's on its uptime, a trace's on its file
// times), puts back each thing and says so in a note, and leaves the phone
// as it was before (before). The next session samples stacks, so that it
// looks for the profiler's files too.
func cleanedByNext(t *testing.T, dev *simdevice.Device, d *adbx.Device, before phoneState) {
	t.Helper()
	// A perfetto the earlier session's last command stopped exits a moment
	// later: what it left is read once it has.
	dev.Settle()
	left := readPhone(t, dev)
	t.Logf("left by the earlier session: %s", left)
	dev.World().Skip(looperLease + time.Second)
	if f := append(slices.Clone(left.traces), left.tmp...); len(f) > 0 {
		age(t, dev, 11, f...)
	}
	cfg := perftest.Config{Package: pkg, Name: t.Name() + "/next", ResultsDir: t.TempDir(), WaitForApp: true,
		Collectors: []perftest.Collector{perftest.CollectFrames}, Trace: &perftest.TraceConfig{}}
	tk := newTicker()
	cfg.OnTick = tk.onTick
	s := perftest.Start(t, d, perftest.WithConfig(cfg))
	s.Step("next", func() { tk.wait(t, 2) })
	r := s.Stop()

	if left.prop == "16" {
		wantNote(t, r, "blocks: "+looperProp+` was left at 16 by an earlier session that ended without restoring it; restored to "100" (its value before)`)
	}
	for _, f := range left.traces {
		wantNote(t, r, "trace: leftover: "+f, "pulled into", "removed from the phone")
	}
	for _, p := range left.procs {
		if strings.Contains(p, "perfetto") {
			wantNote(t, r, "trace: leftover: perfetto (pid "+strings.Fields(p)[0]+") was still recording")
		}
	}
	for _, f := range left.tmp {
		if strings.HasSuffix(f, ".data") || strings.HasSuffix(f, ".trace") {
			wantNote(t, r, "stacks: leftover: removed "+f+", a profiler's file of an earlier session")
		}
		if strings.HasSuffix(f, ".trace-lease") {
			tr := traceDir + "/" + strings.TrimSuffix(filepath.Base(f), ".trace-lease") + ".perfetto-trace"
			if !slices.Contains(left.traces, tr) && !slices.ContainsFunc(left.procs, func(p string) bool { return strings.Contains(p, tr) }) {
				wantNote(t, r, "trace: leftover: removed "+f)
			}
		}
	}
	if left.prop != "16" && len(left.mark)+len(left.traces)+len(left.tmp)+len(left.procs) == 0 {
		for _, n := range r.Notes {
			if strings.Contains(n, "leftover") || strings.Contains(n, "earlier session") {
				t.Errorf("the earlier session left nothing, yet: %q", n)
			}
		}
	}
	if after := readPhone(t, dev); after.String() != before.String() {
		t.Errorf("after the next session the phone has %s;\nbefore the earlier one it had %s", after, before)
	}
}
