package simdevice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/frames"
)

// GenCauses shapes the random workloads of slow frames RandomCauseWorkload
// makes. Its zero value gives the defaults.
type GenCauses struct {
	// Seconds is how long the app draws after its launch, over all its
	// phases, before it goes idle; 0 picks 8 to 20 s, and one seed in
	// eight 60 to 75 s.
	Seconds int
	// RefreshHz is the display's refresh rate; 0 picks 60, 90, 120 or 144.
	RefreshHz float64
	// ANRs is how many times the app stops responding (each a frame of
	// 5.5 to 7 s of one cause's work); 0 picks none (one seed in three),
	// one or two, and a negative number makes none.
	ANRs int
}

// RandomCauseWorkload is a workload whose frames are slow for random
// reasons, the same for the same seed: GenCauses{}.Workload(seed).
//
// The app, in one of two packages whose names differ by a letter (its
// stacks run through the other one too), draws a chain of phases at a
// random refresh rate. Its slow frames have causes of every frame phase:
// Handler messages of their own before a frame, and work inside the
// frame's input, animation, layout or draw on the main thread, their
// lengths around one refresh period (the Looper threshold sessions set)
// and well beyond it, up to over a second; RenderThread work in sync,
// commands or swap, at times right before a frame delayed by a message;
// and ANRs. Every cause has its own deep stack, and each slow frame's
// truth (TruthFrame.Cause, TruthBlock) names what made it late.
func RandomCauseWorkload(seed int64) *Workload { return GenCauses{}.Workload(seed) }

// Workload makes the random workload of seed (see RandomCauseWorkload).
// It is valid: Validate accepts it.
func (g GenCauses) Workload(seed int64) *Workload {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	base := genPick(r, []string{"com.app.feed", "com.shop.cart", "org.news.reader"})
	pkg, other := base, base+"s"
	if r.IntN(2) == 0 {
		pkg, other = other, pkg
	}
	w := &Workload{
		Name: fmt.Sprintf("random-causes-%d", seed), Package: pkg, UID: 10100 + r.IntN(9000),
		Activity: ".MainActivity", Debuggable: true, RefreshHz: g.RefreshHz,
		Startup: Startup{ColdMs: 300 + r.IntN(500), WarmMs: 200, HotMs: 80},
		Memory: Memory{JavaKiB: 20_000, NativeKiB: 30_000, CodeKiB: 25_000, GraphicsKiB: 10_000,
			OtherKiB: 15_000, RSSExtraKiB: 50_000},
	}
	if w.RefreshHz == 0 {
		w.RefreshHz = genPick(r, []float64{60, 90, 120, 144})
	}
	gen := &causeGen{r: r, pkg: pkg, other: other, periodMs: 1000 / w.RefreshHz}
	w.Causes = gen.causes(4 + r.IntN(4))
	seconds := g.Seconds
	if seconds == 0 {
		seconds = 8 + r.IntN(13)
		if r.IntN(8) == 0 {
			seconds = 60 + r.IntN(16)
		}
	}
	anrs := g.ANRs
	if anrs == 0 {
		anrs = r.IntN(3)
	}
	w.Phases = gen.phases(w.Causes, seconds*1000, max(anrs, 0))
	w.Launch = w.Phases[0].Name
	return w
}

// causeGen draws one workload's causes and phases.
type causeGen struct {
	r          *rand.Rand
	pkg, other string // the app's package, and the look-alike one of a library
	periodMs   float64
}

func genPick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// The random words classes and methods are made of.
var (
	genClasses = []string{"Feed", "Tile", "Chart", "Image", "Text", "Store", "Sync", "Prefs", "Layout", "Span", "Cache", "Row", "Pager", "Map"}
	genKinds   = []string{"Adapter", "Cache", "View", "Loader", "Binder", "Engine", "Helper", "Manager"}
	genMethods = []string{"bind", "warm", "decode", "measure", "load", "apply", "draw", "compute", "parse", "flush", "inflate", "update"}
	// genLibraryTail is where the innermost frames of a stack run below
	// the app's code: the framework's own.
	genLibraryTail = [][]string{
		{"android.graphics.BitmapFactory.decodeStream", "android.graphics.BitmapFactory.nativeDecodeStream"},
		{"android.text.StaticLayout.<init>", "android.text.StaticLayout.generate", "android.graphics.text.LineBreaker.computeLineBreaks"},
		{"java.io.FileInputStream.read", "libcore.io.IoBridge.read"},
		{"android.database.sqlite.SQLiteSession.executeForCursorWindow", "android.database.sqlite.SQLiteConnection.nativeExecuteForCursorWindow"},
		{"java.util.regex.Matcher.find", "java.util.regex.Matcher.findImpl"},
		{},
	}
)

// causes draws n causes with distinct names, messages and app frames.
func (g *causeGen) causes(n int) []Cause {
	phases := []string{"wait", "wait", "wait", "input", "animation", "layout", "layout", "draw", "draw", "sync", "commands", "swap"}
	out := make([]Cause, 0, n)
	for i := range n {
		c := Cause{Name: fmt.Sprintf("c%d", i), Phase: genPick(g.r, phases)}
		if i < 2 {
			c.Phase = "wait" // every workload has messages of their own
		}
		class := fmt.Sprintf("%s%s%d", genPick(g.r, genClasses), genPick(g.r, genKinds), i)
		app := g.appFrames(class)
		switch c.Phase {
		case "wait":
			if g.r.IntN(3) == 0 {
				// A Handler subclass of the app's, with a message code.
				c.Handler, c.What = g.pkg+"."+class+"$H", 1+g.r.IntN(40)
				c.Stack = stackOf(looperBase, []string{c.Handler + ".handleMessage"}, app)
			} else {
				// A Runnable posted to a plain Handler; its class is the
				// look-alike library's one time in three.
				owner := g.pkg
				if g.r.IntN(3) == 0 {
					owner = g.other
				}
				c.Handler, c.Callback = "android.os.Handler", fmt.Sprintf("%s.%s$%d", owner, class, 1+g.r.IntN(3))
				c.Stack = stackOf(looperBase, []string{"android.os.Handler.handleCallback", c.Callback + ".run"}, app)
			}
		case "input", "animation", "layout", "draw":
			c.Stack = stackOf(looperBase, doFrameBase, phaseStacks[frames.Phase(c.Phase)], app)
		}
		out = append(out, c)
	}
	return out
}

// appFrames is a deep stack of the app's code for class, outermost first:
// a few of the app's frames and of the look-alike library's interleaved,
// ending in the app's own method (the frame a profile names) and
// sometimes below it the library's and the framework's.
func (g *causeGen) appFrames(class string) []string {
	var out []string
	for d := range 4 + g.r.IntN(20) {
		owner := g.pkg
		if g.r.IntN(3) == 0 {
			owner = g.other
		}
		out = append(out, fmt.Sprintf("%s.%s.%s.%s%d", owner, strings.ToLower(genPick(g.r, genClasses)), genPick(g.r, genClasses)+genPick(g.r, genKinds),
			genPick(g.r, genMethods), d))
	}
	out = append(out, fmt.Sprintf("%s.%s.%s", g.pkg, class, genPick(g.r, genMethods)))
	if g.r.IntN(2) == 0 {
		out = append(out, fmt.Sprintf("%s.%s.%s", g.other, genPick(g.r, genClasses)+genPick(g.r, genKinds), genPick(g.r, genMethods)))
	}
	return append(out, genPick(g.r, genLibraryTail)...)
}

// phases draws a chain of phases that last about totalMs in all, then an
// idle one; anrs of their slow frames, in distinct phases, last over 5 s.
func (g *causeGen) phases(causes []Cause, totalMs, anrs int) []Phase {
	var main []string
	for _, c := range causes {
		if slices.Contains(mainThreadCausePhases, c.Phase) {
			main = append(main, c.Name)
		}
	}
	var out []Phase
	next := g.r.IntN(len(main))
	for left := totalMs; left > 0; {
		p := Phase{Name: fmt.Sprintf("p%d", len(out)), EveryVsyncs: 1, DurationMs: min(left, 1500+g.r.IntN(6000)),
			CPU: []ThreadLoad{{Thread: "main", Percent: 30}, {Thread: "RenderThread", Percent: 15}}}
		if g.r.IntN(6) == 0 {
			p.EveryVsyncs = 2
		}
		if anrs > 0 && len(out) > 0 {
			// An ANR's phase lasts beyond its frame, whatever was drawn.
			anrs--
			ms := 5500 + g.r.IntN(1500)
			p.DurationMs = max(p.DurationMs, ms+1000+g.r.IntN(2000))
			p.Janks = append(p.Janks, Jank{At: []int{1 + g.r.IntN(4)}, Ms: float64(ms), Cause: main[next%len(main)], ANR: true})
			next++
		} else {
			p.Janks = g.janks(causes, p.DurationMs*p.EveryVsyncs)
		}
		left -= p.DurationMs
		out = append(out, p)
	}
	for i := range out[:len(out)-1] {
		out[i].Next = out[i+1].Name
	}
	out[len(out)-1].Next = "idle"
	return append(out, Phase{Name: "idle", CPU: []ThreadLoad{{Thread: "main", Percent: 1}}})
}

// janks draws a phase's slow frames, about one a second, for a phase of
// about ms/every frames at the workload's rate.
func (g *causeGen) janks(causes []Cause, ms int) []Jank {
	frames := max(int(float64(ms)/g.periodMs/2), 4) // slow frames skip vsyncs: at least half are drawn
	var waits []Cause
	for _, c := range causes {
		if c.Phase == "wait" {
			waits = append(waits, c)
		}
	}
	used := map[int]bool{}
	free := func() int {
		for {
			if i := g.r.IntN(frames); !used[i] && !used[i+1] && (i == 0 || !used[i-1]) {
				used[i] = true
				return i
			}
		}
	}
	var out []Jank
	for range 1 + ms/1000 {
		c := genPick(g.r, causes)
		i := free()
		out = append(out, Jank{At: []int{i}, Ms: g.slowMs(), Cause: c.Name, Wait: genPick(g.r, []string{"", "", WaitBinder, WaitIO, WaitLock})})
		if slices.Contains([]string{"sync", "commands", "swap"}, c.Phase) && g.r.IntN(2) == 0 && !used[i+2] {
			// The next frame is delayed by a message of its own that
			// starts just before the RenderThread-bound one ends: the
			// slow frame ends half a millisecond before a vsync, and the
			// message runs from just before that vsync.
			last := &out[len(out)-1]
			last.Ms = math.Ceil(last.Ms/g.periodMs)*g.periodMs - 0.5
			used[i+1] = true
			out = append(out, Jank{At: []int{i + 1}, Ms: g.slowMs(), Cause: genPick(g.r, waits).Name})
		}
	}
	return out
}

// slowMs is the length of a slow frame: its cause's work is about one
// refresh period (the Looper threshold), on either side of it; a few
// periods; or, now and then, hundreds of ms.
func (g *causeGen) slowMs() float64 {
	normal := 0.5 * g.periodMs
	var work float64
	switch k := g.r.IntN(10); {
	case k < 4:
		work = g.periodMs * (0.6 + 0.9*g.r.Float64())
	case k < 8:
		work = g.periodMs * (1.5 + 6*g.r.Float64())
	default:
		work = 150 + 1200*g.r.Float64()
	}
	return float64(int((normal+work)*10)) / 10
}
