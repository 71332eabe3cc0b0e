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
	// janky-feed scrolls a feed whose frames are slow for two reasons. Four
	// frames in a row bind rows in RecyclerView's layout, laying out their
	// text (cause "bind", in FeedAdapter.onBindViewHolder, 3 vsyncs each);
	// one frame waits behind an image decoded on the main thread in a
	// Handler message of its own (cause "decode", ImageCache.decodeSync,
	// 6 vsyncs). Tapping "Save" freezes the main thread for 6 s in a
	// synchronous preferences write, and the system reports an ANR.
	"janky-feed": func() *Workload {
		w := presetBase("janky-feed")
		w.Causes = []Cause{
			{Name: "bind", Phase: "layout", Stack: stackOf(looperBase, doFrameBase, phaseStacks["layout"][:3], []string{
				"androidx.recyclerview.widget.RecyclerView.onLayout", "androidx.recyclerview.widget.RecyclerView.dispatchLayoutStep2",
				"androidx.recyclerview.widget.LinearLayoutManager.onLayoutChildren", "androidx.recyclerview.widget.LinearLayoutManager.fill",
				"androidx.recyclerview.widget.RecyclerView$Adapter.bindViewHolder", PresetPackage + ".FeedAdapter.onBindViewHolder",
				"android.text.StaticLayout.<init>", "android.text.StaticLayout.generate", "android.graphics.text.LineBreaker.computeLineBreaks"})},
			{Name: "decode", Phase: "wait", Handler: "android.os.Handler", Callback: PresetPackage + ".ImageCache$1",
				Stack: stackOf(looperBase, []string{"android.os.Handler.handleCallback", PresetPackage + ".ImageCache$1.run",
					PresetPackage + ".ImageCache.decodeSync", "android.graphics.BitmapFactory.decodeStream", "android.graphics.BitmapFactory.nativeDecodeStream"})},
			{Name: "commit", Phase: "wait", Handler: "android.os.Handler", Callback: PresetPackage + ".SettingsStore$2",
				Stack: stackOf(looperBase, []string{"android.os.Handler.handleCallback", PresetPackage + ".SettingsStore$2.run",
					PresetPackage + ".SettingsStore.save", "android.app.SharedPreferencesImpl$EditorImpl.commit",
					"android.app.SharedPreferencesImpl.writeToFile", "java.io.FileDescriptor.sync"})},
		}
		w.Phases = []Phase{scrollPhase("scroll", 3000, []Jank{
			{At: []int{20, 21, 22, 23}, Vsyncs: 3, Cause: "bind"},
			{At: []int{70}, Vsyncs: 6, Cause: "decode"},
		}), idlePhase(), {
			Name: "save", EveryVsyncs: 1, DurationMs: 8000, Next: "idle",
			CPU:   []ThreadLoad{{Thread: "main", Percent: 30}},
			Janks: []Jank{{At: []int{2}, Ms: 6000, Cause: "commit", ANR: true}},
		}}
		w.Actions = append(w.Actions, Action{On: "tap:Save", Phase: "save"})
		w.Screen = append(w.Screen, Elem{Class: "android.widget.Button", Text: "Save", ResourceID: PresetPackage + ":id/save",
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
// "janky-scroll", "janky-feed", "memory-leak", "chatty-network",
// "crash-on-tap" or "slow-start".
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
