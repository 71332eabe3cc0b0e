package simdevice

import (
	"fmt"
	"sort"
)

// Preset app identity: every preset installs the same demo app so tests can
// switch behaviour without changing the package they measure.
const (
	PresetPackage = "com.perfgate.demo"
	PresetUID     = 10234
)

// presets builds each named workload; a function, so callers get a fresh
// copy they may edit.
var presets = map[string]func() *Workload{
	"smooth-scroll": func() *Workload {
		w := presetBase("smooth-scroll")
		w.Phases = []Phase{scrollPhase("scroll", 3000, nil), idlePhase()}
		return w
	},
	// janky-scroll repeats a 3 s scroll whose 31st, 91st and 151st frames
	// take 6, 8 and 3 vsyncs: each loop misses 3 deadlines (API ≥ 31 rule:
	// more than two periods; older: more than one) and at 60 Hz the 6- and
	// 8-vsync frames (96 ms, 129 ms) are PerfDog Janks, the 8-vsync one a
	// BigJank.
	"janky-scroll": func() *Workload {
		w := presetBase("janky-scroll")
		w.Phases = []Phase{scrollPhase("scroll", 3000, []Jank{
			{At: []int{30}, Vsyncs: 6},
			{At: []int{90}, Vsyncs: 8},
			{At: []int{150}, Vsyncs: 3},
		}), idlePhase()}
		return w
	},
	"memory-leak": func() *Workload {
		w := presetBase("memory-leak")
		p := scrollPhase("scroll", 3000, nil)
		p.EveryVsyncs = 2
		p.JavaGrowthKiBps = 512
		p.NativeGrowthKiBps = 256
		w.Phases = []Phase{p, idlePhase()}
		return w
	},
	"chatty-network": func() *Workload {
		w := presetBase("chatty-network")
		p := scrollPhase("scroll", 3000, nil)
		p.EveryVsyncs = 4
		p.RxBps = 200_000
		p.TxBps = 50_000
		p.CPU = append(p.CPU, ThreadLoad{Thread: "OkHttp Dispatch", Percent: 15})
		w.Phases = []Phase{p, idlePhase()}
		return w
	},
	// crash-on-tap scrolls until "Crash" is tapped; 200 ms later the app
	// throws and the system starts it again under a new pid.
	"crash-on-tap": func() *Workload {
		w := presetBase("crash-on-tap")
		w.Phases = []Phase{scrollPhase("scroll", 3000, nil), idlePhase(), {
			Name: "crashing", EveryVsyncs: 1, DurationMs: 1000,
			CPU:   []ThreadLoad{{Thread: "main", Percent: 60}, {Thread: "RenderThread", Percent: 20}},
			Crash: &Crash{AfterMs: 200, Exception: "java.lang.IllegalStateException: perfgate demo crash", Restart: true},
		}}
		w.Actions = append(w.Actions, Action{On: "tap:Crash", Phase: "crashing"})
		w.Screen = append(w.Screen, Elem{Class: "android.widget.Button", Text: "Crash", ResourceID: PresetPackage + ":id/crash",
			Bounds: [4]int{720, 2200, 1040, 2340}, Clickable: true})
		return w
	},
	// slow-start takes about 2.5 s from am start to Displayed when cold.
	"slow-start": func() *Workload {
		w := presetBase("slow-start")
		w.Startup = Startup{ColdMs: 2500, WarmMs: 900, HotMs: 250, FullyDrawnMs: 3100}
		w.Phases = []Phase{scrollPhase("scroll", 3000, nil), idlePhase()}
		return w
	},
}

// PresetNames lists the built-in workloads.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns a fresh copy of a built-in workload: "smooth-scroll",
// "janky-scroll", "memory-leak", "chatty-network", "crash-on-tap" or
// "slow-start".
func Preset(name string) (*Workload, error) {
	f, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("simdevice: preset %q: %w (have %v)", name, ErrWorkload, PresetNames())
	}
	w := f()
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("simdevice: preset %q: %w", name, err)
	}
	return w, nil
}

func presetBase(name string) *Workload {
	return &Workload{
		Name:       name,
		Package:    PresetPackage,
		UID:        PresetUID,
		Activity:   ".MainActivity",
		Debuggable: true,
		Startup:    Startup{ColdMs: 650, WarmMs: 320, HotMs: 120, FullyDrawnMs: 900},
		Memory: Memory{JavaKiB: 24_000, NativeKiB: 38_000, CodeKiB: 30_000, GraphicsKiB: 12_000,
			OtherKiB: 20_000, RSSExtraKiB: 60_000},
		Launch: "scroll",
		Actions: []Action{
			{On: "tap:Scroll", Phase: "scroll"},
			{On: "swipe", Phase: "scroll"},
			{On: "tap:Stop", Phase: "idle"},
		},
		Screen: []Elem{
			{Class: "android.widget.TextView", Text: "perfgate demo", ResourceID: PresetPackage + ":id/title", Bounds: [4]int{40, 140, 1040, 260}},
			{Class: "androidx.recyclerview.widget.RecyclerView", ResourceID: PresetPackage + ":id/list", ContentDesc: "feed",
				Bounds: [4]int{0, 280, 1080, 2160}, Scrollable: true},
			{Class: "android.widget.Button", Text: "Scroll", ResourceID: PresetPackage + ":id/scroll", Bounds: [4]int{40, 2200, 360, 2340}, Clickable: true},
			{Class: "android.widget.Button", Text: "Stop", ResourceID: PresetPackage + ":id/stop", Bounds: [4]int{380, 2200, 700, 2340}, Clickable: true},
		},
	}
}

// scrollPhase renders in every vsync and loops.
func scrollPhase(name string, ms int, janks []Jank) Phase {
	return Phase{
		Name: name, DurationMs: ms, Next: name, EveryVsyncs: 1, Janks: janks,
		CPU: []ThreadLoad{
			{Thread: "main", Percent: 35},
			{Thread: "RenderThread", Percent: 20},
			{Thread: "Jit thread pool", Percent: 2},
		},
		RxBps: 2_000, TxBps: 500,
	}
}

func idlePhase() Phase {
	return Phase{Name: "idle", CPU: []ThreadLoad{{Thread: "main", Percent: 1}}}
}
