package tracing

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
)

// The pull's deadline is a floor plus the file's size at 1 MiB/s: a
// 1 GiB buffer gets its 17 min on top of the 2.
func TestTracePullDeadline(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want time.Duration
	}{
		{-1, 2 * time.Minute},
		{0, 2 * time.Minute},
		{1 << 19, 2*time.Minute + 500*time.Millisecond},
		{64 << 20, 2*time.Minute + 64*time.Second},
		{1 << 30, 2*time.Minute + 1024*time.Second},
		{1<<30 + 1<<20, 2*time.Minute + 1025*time.Second},
		{1 << 62, 2*time.Minute + (1<<20)*time.Second}, // no overflow: sizes are capped at 1 TiB
	} {
		if got := pullDeadline(tc.size); got != tc.want {
			t.Errorf("pullDeadline(%d) = %v, want %v", tc.size, got, tc.want)
		}
	}
}

// pullDevice is a phone whose pull serves data, or fails after it, and
// records the deadline each pull had.
type pullDevice struct {
	data []byte
	err  error

	mu        sync.Mutex
	deadlines []time.Duration
	cmds      [][]string
}

func (d *pullDevice) batch(_ context.Context, cmds []string) ([]adbx.Result, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cmds = append(d.cmds, cmds)
	return make([]adbx.Result, len(cmds)), nil
}
func (d *pullDevice) pull(ctx context.Context, _ string, w io.Writer) error {
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	d.deadlines = append(d.deadlines, time.Until(dl))
	d.mu.Unlock()
	if _, err := w.Write(d.data); err != nil {
		return err
	}
	return d.err
}

// recorder is a Recorder on the phone d.
func (d *pullDevice) recorder() *Recorder {
	return &Recorder{env: Env{Serial: "pull-1", Batch: d.batch, Pull: d.pull}}
}

// pullWhole gives the pull the deadline of the file's size, takes a copy
// only when it is as long as the device says, and leaves nothing behind
// otherwise.
func TestTracePullWhole(t *testing.T) {
	const remote = traceDir + "/perfgate-com.example-1.perfetto-trace"
	for _, tc := range []struct {
		name    string
		data    string
		err     error
		size    int64
		wantErr string // "" for a copy
	}{
		{name: "whole", data: "0123456789", size: 10},
		{name: "short", data: "01234", size: 10, wantErr: "adb pull " + remote + " (of 10 bytes by stat -c %s, deadline 19m4s): the pull ended short: the copy has 5 bytes"},
		{name: "longer", data: "0123456789ab", size: 10, wantErr: "the copy has 12 bytes"},
		{name: "failed", data: "01234", size: 10, err: errors.New(`device says "read failed: I/O error"`), wantErr: `adb pull ` + remote + ` (of 10 bytes by stat -c %s, deadline 19m4s): device says "read failed: I/O error"`},
		{name: "unknown size", data: "0123", size: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d := &pullDevice{data: []byte(tc.data), err: tc.err}
			p, err := d.recorder().pullWhole(context.Background(), remote, tc.size, pullDeadline(1<<30), dir, "x", ".perfetto-trace", nil)
			ents, _ := os.ReadDir(dir)
			var names []string
			for _, e := range ents {
				if e.Name() != result.LockFile {
					names = append(names, e.Name())
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want %q", err, tc.wantErr)
				}
				if len(names) > 0 {
					t.Errorf("a failed pull left %q", names)
				}
			} else {
				b, rerr := os.ReadFile(p)
				if err != nil || rerr != nil || string(b) != tc.data || p != filepath.Join(dir, "x.perfetto-trace") || !slices.Equal(names, []string{"x.perfetto-trace"}) {
					t.Errorf("copy %s (%v, %v): %q; folder %q", p, err, rerr, b, names)
				}
				// Mode 0644, as every file perfgate writes: not the
				// temporary file's 0600.
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("copy %s: mode %v (%v), want -rw-r--r--", p, fi.Mode().Perm(), err)
				}
			}
			// The deadline is the one asked for, 2 min + 1024 s: not a
			// fixed cap.
			if want := 2*time.Minute + 1024*time.Second; len(d.deadlines) != 1 || d.deadlines[0] > want || d.deadlines[0] < want-time.Minute {
				t.Errorf("pull deadlines %v, want %v", d.deadlines, want)
			}
		})
	}
}

// What the listing commands print on a phone, read: perfgate's files, the
// perfetto writing one, the leases; the rest is not perfgate's.
func TestParseTraceListing(t *testing.T) {
	const (
		a = traceDir + "/perfgate-com.example-1.perfetto-trace"
		b = traceDir + "/perfgate-com.example.app_2-22.perfetto-trace"
	)
	out := []adbx.Result{
		{Stdout: []byte("100000\n")},
		{Stdout: []byte("99000 4096 " + a + "\n99990 12 " + b + "\n99000 7 " + traceDir + "/other.perfetto-trace\n")},
		{Stdout: []byte("  PID ARGS\n    1 init\n 2001 /system/bin/perfetto --txt -c - -o " + b + " --background-wait\n" +
			" 2002 perfetto --txt -c - --out=" + traceDir + "/perfgate-x-3.perfetto-trace\n" +
			" 2003 perfetto -c /data/misc/perfetto-configs/c -o " + traceDir + "/mine.perfetto-trace\n" +
			" 2004 cat -o " + a + "\n")},
		{Stdout: []byte("99950 " + devcmd.TmpDir + "/perfgate-com.example.app_2-22.trace-lease\n99950 " + devcmd.TmpDir + "/other.trace-lease\n")},
	}
	dt, err := parseTraceListing(out)
	if err != nil {
		t.Fatal(err)
	}
	if dt.now != 100000 || len(dt.files) != 2 || dt.files[a] != (traceFile{99000, 4096}) || dt.files[b] != (traceFile{99990, 12}) {
		t.Errorf("now %d, files %v", dt.now, dt.files)
	}
	if len(dt.procs) != 2 || dt.procs[b] != 2001 || dt.procs[traceDir+"/perfgate-x-3.perfetto-trace"] != 2002 {
		t.Errorf("procs %v", dt.procs)
	}
	if len(dt.leases) != 1 || dt.leases[b] != 99950 {
		t.Errorf("leases %v", dt.leases)
	}
	bad := slices.Clone(out)
	bad[0] = adbx.Result{Stdout: []byte("Thu Jan  1\n")}
	if _, err := parseTraceListing(bad); err == nil || !strings.Contains(err.Error(), `date +%s printed "Thu Jan  1"`) {
		t.Errorf("a clock that is not seconds: %v", err)
	}
}

// A trace is a leftover only when nothing says it may be a live
// session's: no session of this process, no lease touched within the
// grace period, and, without a lease, no file younger than it. A stale
// lease is a dead session's even while the perfetto it left still writes
// the file.
func TestTraceStale(t *testing.T) {
	const now = 100000
	grace := int64(devcmd.LeftoverGrace / time.Second)
	p := func(n string) string { return traceDir + "/perfgate-com.example-" + n + ".perfetto-trace" }
	dt := deviceTraces{now: now,
		files:  map[string]traceFile{p("1"): {now - grace, 5}, p("2"): {now - grace + 1, 5}, p("3"): {now - 3*grace, 5}, p("4"): {now - 3*grace, 5}, p("6"): {now - 3*grace, 5}, p("7"): {now - 1, 5}},
		procs:  map[string]int{p("5"): 3000, p("7"): 3001},
		leases: map[string]int64{p("3"): now - 60, p("4"): now - grace - 60, p("7"): now - grace - 60},
	}
	liveTraces.Store(traceKey("s1", p("6")), true)
	t.Cleanup(func() { liveTraces.Delete(traceKey("s1", p("6"))) })
	for _, tc := range []struct {
		n     string
		stale bool
		why   string
	}{
		{"1", true, "no lease, the file 10m0s old"},
		{"2", false, ""}, // younger than the grace period
		{"3", false, ""}, // a lease touched a minute ago
		{"4", true, "its lease untouched for 11m0s"}, // the session stopped touching it
		{"5", true, "no lease, no file"},
		{"6", false, ""},                             // this process records it
		{"7", true, "its lease untouched for 11m0s"}, // its perfetto still writes the file
	} {
		why, stale := dt.staleFor("s1", p(tc.n))
		if stale != tc.stale || why != tc.why {
			t.Errorf("%s: stale %v (%q), want %v (%q)", tc.n, stale, why, tc.stale, tc.why)
		}
	}
	if _, stale := dt.staleFor("s2", p("6")); !stale {
		t.Error("another phone's live trace of the same name keeps this phone's")
	}
}

// The lease is touched on every tick until it is released, and a touch
// that fails is told at release.
func TestTraceLeaseHeartbeat(t *testing.T) {
	d := &pullDevice{}
	r := d.recorder()
	tick := make(chan time.Time)
	const l = devcmd.TmpDir + "/perfgate-com.example-1.trace-lease"
	h := r.holdLease(l, tick)
	tick <- time.Now()
	tick <- time.Now()
	if n := h.release(); n != "" {
		t.Errorf("release: %q", n)
	}
	if len(d.cmds) < 1 || !slices.Equal(d.cmds[0], []string{"touch " + l}) {
		t.Errorf("commands %q", d.cmds)
	}
	// The second tick was taken, so its touch ran before the release.
	if len(d.cmds) != 2 {
		t.Errorf("%d touches for 2 ticks", len(d.cmds))
	}

	f := &failDevice{pullDevice: d}
	r = &Recorder{env: Env{Serial: "pull-1", Batch: f.batch, Pull: f.pull}}
	h = r.holdLease(l, tick)
	tick <- time.Now()
	if n := h.release(); !strings.Contains(n, "could not be touched (1 failure; the first: touch "+l+": exit status 1: touch: Permission denied)") {
		t.Errorf("release after a failed touch: %q", n)
	}
}

// failDevice fails every command with exit status 1.
type failDevice struct{ *pullDevice }

func (f *failDevice) batch(_ context.Context, cmds []string) ([]adbx.Result, error) {
	out := make([]adbx.Result, len(cmds))
	for i := range out {
		out[i] = adbx.Result{ExitCode: 1, Stderr: []byte("touch: Permission denied")}
	}
	return out, nil
}
