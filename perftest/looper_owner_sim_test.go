package perftest_test

import (
	"bytes"
	"context"
	"io"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// looperMark is where a session marks its change to the janky-feed app's
// Looper property on the phone, and looperLease how long a session's
// lease on it lasts after its last renewal (README, "Why it janked").
const (
	looperMark  = "/data/local/tmp/perfgate/looper.10234.main"
	looperLease = 60 * time.Second
)

// looperProp is the janky-feed app's Looper property.
var looperProp = logcat.LooperSlowProperty(10234, "main")

// markPhone is a phone with the janky-feed app installed and not running,
// its Looper property set to before (unset when "") as the phone's own.
func markPhone(t *testing.T, serial, before string) *simdevice.Device {
	t.Helper()
	wl, err := simdevice.Preset("janky-feed")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{Workload: wl, Serial: serial})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	if before != "" {
		devShell(t, dev, "setprop "+looperProp+" "+before)
	}
	return dev
}

// devShell runs cmd on the phone itself, as its owner at the desk would.
func devShell(t *testing.T, dev *simdevice.Device, cmd string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	if st := dev.Shell(ctx, cmd, nil, &out, &errb); st != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, st, errb.String())
	}
	return out.String()
}

// markConfig is a session measuring frames (so causes are found) of the
// janky-feed app, which may not be running.
func markConfig(t *testing.T) perftest.Config {
	return perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true,
		Collectors: []perftest.Collector{perftest.CollectFrames}, Causes: perftest.CauseOptions{NoStacks: true}}
}

// markFiles reads the mark's files by name ("original", "owner.<id>"); nil
// when there is no mark.
func markFiles(t *testing.T, dev *simdevice.Device) map[string]string {
	t.Helper()
	fis, err := dev.ReadDir(looperMark)
	if err != nil {
		return nil
	}
	files := map[string]string{}
	for _, fi := range fis {
		r, err := dev.Open(path.Join(looperMark, fi.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		files[fi.Name()] = string(b)
	}
	return files
}

// owners are the mark's owner files.
func owners(files map[string]string) []string {
	var out []string
	for name := range files {
		if strings.HasPrefix(name, "owner.") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// wantProp checks the Looper property (want "" for unset).
func wantProp(t *testing.T, dev *simdevice.Device, when, want string) {
	t.Helper()
	if got, _ := dev.World().Prop(looperProp); got != want {
		t.Errorf("%s: %s = %q, want %q", when, looperProp, got, want)
	}
}

// wantNote checks that r has a note containing each of parts.
func wantNote(t *testing.T, r *result.Result, parts ...string) {
	t.Helper()
	if !slices.ContainsFunc(r.Notes, func(n string) bool {
		for _, p := range parts {
			if !strings.Contains(n, p) {
				return false
			}
		}
		return true
	}) {
		t.Errorf("%s: no note with %q in %q", r.Name, parts, r.Notes)
	}
}

// Two sessions overlap on one phone: the second takes the value before
// the first from the mark (not the first's 16), the first leaves the
// property set for the second, and the second, the last to stop, restores
// the value the phone had before either.
func TestLooperOverlappingSessions(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := markPhone(t, "sim-overlap", "100")
		d, _ := openHost(t, dev, nil)
		a := perftest.Start(t, d, perftest.WithConfig(markConfig(t)))
		wantProp(t, dev, "the first session running", "16")
		b := perftest.Start(t, d, perftest.WithConfig(markConfig(t)))
		if f := markFiles(t, dev); len(owners(f)) != 2 || !strings.Contains(f["original"], `original "100"`) {
			t.Errorf("mark with both sessions running: %q", f)
		}
		ra := a.Stop()
		wantProp(t, dev, "the first session stopped, the second running", "16")
		wantNote(t, ra, "blocks: "+looperProp+" stays at 16 for 1 other session(s) on this phone", `restores it to "100"`)
		if f := markFiles(t, dev); len(owners(f)) != 1 {
			t.Errorf("mark after the first session stopped: %q, want the second's owner file alone", f)
		}
		rb := b.Stop()
		wantProp(t, dev, "both sessions stopped", "100")
		wantNote(t, rb, "also held by 1 other live session(s)", `restores it to "100"`)
		if f := markFiles(t, dev); f != nil {
			t.Errorf("mark after both sessions stopped: %q, want none", f)
		}
		for _, r := range []*result.Result{ra, rb} {
			if r.Causes == nil || r.Causes.LooperProperty != looperProp || r.Error != "" {
				t.Errorf("%s: causes %+v, error %q", r.Name, r.Causes, r.Error)
			}
		}
	})
}

// The phone rebooted while a session held the property: the reboot reset
// it, and the mark left in /data/local/tmp (which a reboot keeps) is of
// another boot. The next session removes it and restores nothing from it:
// the property ends as the rebooted phone had it, not as the mark says it
// was before the reboot.
func TestLooperMarkOfEarlierBoot(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		before := markPhone(t, "sim-boot", "100")
		d, _ := openHost(t, before, nil)
		s := perftest.Start(t, d, perftest.WithConfig(markConfig(t)))
		// A new World is a new boot: properties reset, another boot id, and
		// the files of /data/local/tmp carried over.
		after := markPhone(t, "sim-boot", "")
		copyTree(t, before, after, "/data/local/tmp/perfgate")
		s.Stop()
		if len(owners(markFiles(t, after))) != 1 {
			t.Fatalf("the rebooted phone's mark: %q", markFiles(t, after))
		}
		d2, _ := openHost(t, after, nil)
		s2 := perftest.Start(t, d2, perftest.WithConfig(markConfig(t)))
		wantProp(t, after, "the session after the reboot running", "16")
		r := s2.Stop()
		wantProp(t, after, "the session after the reboot stopped", "")
		wantNote(t, r, "blocks: removed the mark ("+looperMark+") of "+looperProp+" left before the phone rebooted", "nothing was restored")
		if f := markFiles(t, after); f != nil {
			t.Errorf("mark after the session: %q, want none", f)
		}
	})
}

// copyTree copies the files under dir from one phone to the other, as
// adb pull and push would.
func copyTree(t *testing.T, from, to *simdevice.Device, dir string) {
	t.Helper()
	fis, err := from.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range fis {
		p := path.Join(dir, fi.Name())
		if fi.IsDir() {
			copyTree(t, from, to, p)
			continue
		}
		r, err := from.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		w, err := to.Create(p, fi.Mode(), fi.ModTime())
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// frozenPhone stops answering the commands that set a property while
// frozen, as a phone that hangs just as Stop restores the property.
type frozenPhone struct {
	*simdevice.Device
	frozen atomic.Bool
}

func (f *frozenPhone) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	if f.frozen.Load() && strings.Contains(cmd, "setprop") {
		<-ctx.Done()
		return 130
	}
	return f.Device.Shell(ctx, cmd, stdin, stdout, stderr)
}

// The phone freezes during Stop's restore: Stop tries again, a bounded
// number of times, and then says in the Result that the property stays
// set and that the next session restores it; the next session (once the
// lease has run out on the phone's clock) does, and says so.
func TestLooperRestoreOnFrozenPhone(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		fp := &frozenPhone{Device: markPhone(t, "sim-frozen", "100")}
		srv := adbtest.NewPipeServer(fp)
		t.Cleanup(srv.Close)
		d := srv.Open(fp.Serial())
		cfg := markConfig(t)
		cfg.TickTimeout = 300 * time.Millisecond
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		fp.frozen.Store(true)
		began := time.Now()
		r := s.Stop()
		took := time.Since(began)
		fp.frozen.Store(false)
		wantProp(t, fp.Device, "the frozen Stop", "16")
		wantNote(t, r, "blocks: "+looperProp+` could not be restored to "100" (3 tries over `, "it stays at 16 on the phone, marked in "+looperMark,
			"the next session on this phone restores it once this session's lease has run out")
		if len(owners(markFiles(t, fp.Device))) != 1 {
			t.Errorf("mark after the frozen Stop: %q, want the session's owner file", markFiles(t, fp.Device))
		}
		// Three tries of 1.5 tick timeouts, half a tick timeout apart.
		if took > 10*time.Second {
			t.Errorf("Stop took %v on the frozen phone", took)
		}

		next := func(want string) *result.Result {
			t.Helper()
			cfg := markConfig(t)
			s := perftest.Start(t, d, perftest.WithConfig(cfg))
			wantProp(t, fp.Device, "the next session running", "16")
			r := s.Stop()
			wantProp(t, fp.Device, "the next session stopped", want)
			return r
		}
		// Within the frozen session's lease, it may still be alive: the next
		// session shares the property and leaves it set.
		r2 := next("16")
		wantNote(t, r2, "also held by 1 other live session(s)")
		// Once the lease has run out on the phone's clock, the next session
		// restores the leftover.
		fp.World().Skip(looperLease + time.Second)
		r3 := next("100")
		wantNote(t, r3, "blocks: "+looperProp+` was left at 16 by an earlier session that ended without restoring it; restored to "100" (its value before)`)
		if f := markFiles(t, fp.Device); f != nil {
			t.Errorf("mark after the leftover was restored: %q, want none", f)
		}
	})
}

// A session renews its lease on the phone's clock once half of it is
// spent, in its cheap lane: a live session's mark never looks dead.
func TestLooperLeaseRenewed(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := markPhone(t, "sim-lease", "")
		d, _ := openHost(t, dev, nil)
		s := perftest.Start(t, d, perftest.WithConfig(markConfig(t)))
		end := func() time.Duration {
			t.Helper()
			f := markFiles(t, dev)
			o := owners(f)
			if len(o) != 1 {
				t.Fatalf("mark %q, want one owner", f)
			}
			fields := strings.Fields(f[o[0]])
			if len(fields) != 3 || fields[0] != "owner" || "owner."+fields[1] != o[0] {
				t.Fatalf("owner file %s: %q", o[0], f[o[0]])
			}
			d, err := time.ParseDuration(fields[2] + "s")
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		first := end()
		if up := dev.World().Uptime(); first < up+looperLease-5*time.Second || first > up+looperLease {
			t.Errorf("lease ends at %v, uptime %v: want a %v lease", first, up, looperLease)
		}
		dev.World().Skip(looperLease/2 + time.Second)
		skipped := dev.World().Uptime()
		deadline := time.Now().Add(time.Minute)
		for end() == first {
			if time.Now().After(deadline) {
				t.Fatal("the lease was not renewed within a minute of ticks")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if renewed := end(); renewed < skipped+looperLease-time.Second {
			t.Errorf("lease renewed to %v, want %v from uptime %v", renewed, looperLease, skipped)
		}
		r := s.Stop()
		wantProp(t, dev, "after Stop", "")
		if f := markFiles(t, dev); f != nil || r.Causes.LooperProperty != looperProp {
			t.Errorf("mark after Stop: %q; causes %+v", f, r.Causes)
		}
	})
}
