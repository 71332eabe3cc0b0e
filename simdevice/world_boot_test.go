package simdevice

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// The boot id is one UUID for the whole boot, as the kernel gives it, and
// another phone (another boot) has another: what tells a file left in
// /data/local/tmp before a reboot from one of this boot.
func TestBootIDFile(t *testing.T) {
	t.Parallel()
	d := newTestDevice(t, Config{})
	out, errOut, st := run(t, d, "cat /proc/sys/kernel/random/boot_id; cat /proc/sys/kernel/random/boot_id", "")
	if st != 0 {
		t.Fatalf("cat boot_id: exit %d: %s", st, errOut)
	}
	ids := strings.Fields(out)
	if len(ids) != 2 || ids[0] != ids[1] || out != ids[0]+"\n"+ids[0]+"\n" {
		t.Fatalf("want one UUID twice, a line each, got %q", out)
	}
	if id := ids[0]; len(id) != 36 || strings.Count(id, "-") != 4 || id[14] != '4' {
		t.Errorf("%q is not a version-4 UUID", id)
	}
	other := newTestDevice(t, Config{})
	if o, _, _ := run(t, other, "cat /proc/sys/kernel/random/boot_id", ""); strings.TrimSpace(o) == ids[0] {
		t.Errorf("two phones share the boot id %s", ids[0])
	}
	if _, _, st := run(t, d, "test -f /proc/sys/kernel/random/boot_id", ""); st != 0 {
		t.Errorf("test -f boot_id: exit %d", st)
	}
}

// Skip moves every clock of the phone ahead at once, the simulation
// running through the skipped time: uptime, /proc/uptime, the wall clock,
// and the app's frames.
func TestSkip(t *testing.T) {
	w, _ := newTestWorld(t, Config{Workload: mustPreset(t, "smooth-scroll")})
	wlaunch(t, w)
	up, wall, frames := w.Uptime(), w.Wall(), len(w.TruthFrames())
	w.Skip(90 * time.Second)
	if got := w.Uptime() - up; got != 90*time.Second {
		t.Errorf("uptime moved %v, want 90s", got)
	}
	if got := w.Wall().Sub(wall); got != 90*time.Second {
		t.Errorf("wall clock moved %v, want 90s", got)
	}
	b, err := w.ReadFile("/proc/uptime")
	if err != nil {
		t.Fatal(err)
	}
	secs, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil || time.Duration(secs*float64(time.Second)) < up+90*time.Second-10*time.Millisecond {
		t.Errorf("/proc/uptime %q after the skip, want %v", b, up+90*time.Second)
	}
	if got := w.Truth().Frames - frames; got < 60*60 {
		t.Errorf("%d frames drawn over the skipped 90 s, want those of the app's phases", got)
	}
	w.Skip(-time.Second)
	if w.Uptime() != up+90*time.Second {
		t.Errorf("a negative skip moved the clock")
	}
}

// The shell constructs a tool uses to keep files of its own under
// /data/local/tmp: a glob that matches nothing stays as written (so
// `[ -e "$1" ]` tells an empty folder), groups, and rm -rf of a folder.
func TestShellMarkFolder(t *testing.T) {
	t.Parallel()
	d := newTestDevice(t, Config{})
	script := `d=/data/local/tmp/x/y.1; mkdir -p "$d" && { [ -f "$d/a" ] || printf 'k %s\n' "v 1" > "$d/a"; } && printf 'o %s\n' 1 > "$d/o.1"
for f in "$d"/*; do if [ -f "$f" ]; then cat "$f"; fi; done
rm -f "$d/o.1"; set -- "$d"/o.*; if [ -e "$1" ]; then echo owned; else echo free; fi
rm -rf "$d"; set -- "$d"/*; [ -e "$1" ] || echo gone`
	out, errOut, st := run(t, d, script, "")
	if want := "k v 1\no 1\nfree\ngone\n"; st != 0 || out != want {
		t.Errorf("exit %d, stdout %q (stderr %q), want %q", st, out, errOut, want)
	}
}
