package simdevice

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPresetsLoad(t *testing.T) {
	names := PresetNames()
	want := []string{"chatty-network", "crash-on-tap", "janky-feed", "janky-scroll", "memory-leak", "slow-start", "smooth-scroll"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("PresetNames = %v", names)
	}
	for _, n := range names {
		w, err := Preset(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if w.Package != "com.perfgate.demo" || w.UID != 10234 || w.Name != n {
			t.Errorf("%s: package %s uid %d name %s", n, w.Package, w.UID, w.Name)
		}
		// Each call returns a copy the caller may change.
		w.Phases[0].Name = "changed"
		if again, _ := Preset(n); again.Phases[0].Name == "changed" {
			t.Errorf("%s: Preset shares state between calls", n)
		}
	}
	if _, err := Preset("nope"); !errors.Is(err, ErrWorkload) {
		t.Errorf("unknown preset: %v", err)
	}
	if w, _ := Preset("slow-start"); w.Startup.ColdMs != 2500 {
		t.Errorf("slow-start cold start %d ms", w.Startup.ColdMs)
	}
}

func TestLoadWorkloadExample(t *testing.T) {
	wl, err := LoadWorkload(filepath.Join("testdata", "workload.json"))
	if err != nil {
		t.Fatal(err)
	}
	if wl.Package != "com.example.feed" || wl.RefreshHz != 90 || len(wl.Phases) != 3 || wl.component() != "com.example.feed/com.example.feed.FeedActivity" {
		t.Fatalf("loaded %+v", wl)
	}
	// The example runs: at 90 Hz its feed phase makes every 45th frame span
	// 4 vsyncs, so 2 s after Displayed (180 vsyncs) there are slow frames
	// at indices 44, 89 and 134: 180 − 3×3 = 171 frames.
	w, clk := newTestWorld(t, Config{API: 34, Workload: wl})
	wlaunch(t, w)
	clk.advance(1200*time.Millisecond + 2000*time.Millisecond + 30*time.Millisecond)
	var n, slow int
	end := int64(testBoot + 3200*time.Millisecond)
	for _, f := range w.TruthFrames() {
		if f.IntendedVsync < end && !f.First { // the phase's frames, not the launch's
			n++
			if f.Slow {
				slow++
			}
		}
	}
	if n != 171 || slow != 3 {
		t.Errorf("frames %d slow %d, want 171 and 3", n, slow)
	}
	if got := w.RefreshPeriod(); got != 11111111*time.Nanosecond {
		t.Errorf("period %v", got)
	}
	if tt := w.Truth().ThreadTicks; tt["ExoPlayer:Playb"] == 0 {
		t.Errorf("worker thread has no CPU: %v", tt)
	}
}

func TestWorkloadErrors(t *testing.T) {
	base := func() string {
		b, err := os.ReadFile(filepath.Join("testdata", "workload.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}()
	cases := []struct {
		name, from, to, want string
	}{
		{"syntax", `"uid": 10311,`, `"uid": 10311`, "JSON syntax"},
		{"type", `"uid": 10311`, `"uid": "10311"`, `field "uid"`},
		{"unknown field", `"debuggable": true`, `"debugable": true`, `unknown field "debugable"`},
		{"package", `"package": "com.example.feed"`, `"package": "com.example feed; rm -rf /"`, "package:"},
		{"uid", `"uid": 10311`, `"uid": 1000`, "uid: 1000"},
		{"launch", `"launch": "feed"`, `"launch": "home"`, `launch: no phase named "home"`},
		{"next", `"next": "paused"`, `"next": "nowhere"`, `phases[2].next: no phase named "nowhere"`},
		{"jank both", `{"every": 45, "vsyncs": 4}`, `{"every": 45, "vsyncs": 4, "ms": 30}`, "phases[0].janks[0]: set exactly one"},
		{"jank where", `{"every": 45, "vsyncs": 4}`, `{"vsyncs": 4}`, "phases[0].janks[0]: set at or every"},
		{"cpu", `"percent": 40`, `"percent": 140`, "phases[0].cpu[0].percent: 140"},
		{"thread", `"thread": "ExoPlayer:Playb"`, `"thread": "ExoPlayer:Playback"`, "phases[0].cpu[2].thread"},
		{"action", `"on": "swipe"`, `"on": "fling"`, `actions[2].on: "fling"`},
		{"key", `"on": "key:66"`, `"on": "key:enter"`, "actions[3].on"},
		{"bounds", `[40, 2150, 520, 2330]`, `[520, 2150, 40, 2330]`, "screen[1].bounds"},
		{"dup phase", `"name": "settings"`, `"name": "paused"`, `phases[2].name: "paused" used twice`},
		{"cold", `"cold_ms": 1200`, `"cold_ms": 0`, "startup: cold_ms"},
		{"trailing", "\n}\n", "\n}\n{}", "data after"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.from) {
				t.Fatalf("testdata lacks %q", c.from)
			}
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
			os.WriteFile(p, []byte(strings.Replace(base, c.from, c.to, 1)), 0o644)
			_, err := LoadWorkload(p)
			if err == nil || !errors.Is(err, ErrWorkload) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v; want ErrWorkload naming %s and %q", err, p, c.want)
			}
		})
	}
	if _, err := LoadWorkload(filepath.Join(dir, "missing.json")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestNewWorldRejectsBadWorkload(t *testing.T) {
	wl := mustPreset(t, "smooth-scroll")
	wl.Launch = "nowhere"
	if _, err := newWorldWith(Config{API: 33, Workload: wl}, worldOptions{now: time.Now, ticker: -1}); !errors.Is(err, ErrWorkload) {
		t.Errorf("newWorld accepted a bad workload: %v", err)
	}
}

func TestWorldCopiesWorkload(t *testing.T) {
	wl := mustPreset(t, "janky-scroll")
	w, _ := newTestWorld(t, Config{Workload: wl})
	wl.Phases[0].Janks[0].At[0] = 1
	wl.Phases[0].CPU[0].Percent = 99
	if got := w.Workload().Phases[0]; got.Janks[0].At[0] != 30 || got.CPU[0].Percent != 35 {
		t.Errorf("world follows the caller's edits: %+v", got)
	}
}
