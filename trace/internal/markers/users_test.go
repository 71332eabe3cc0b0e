package markers_test

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
	"github.com/perfgate/perfgate/trace/sections"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

const (
	pkg    = "com.example"
	app    = 100 // the app's process and main thread
	rt     = 101 // its RenderThread
	worker = 102 // another thread of it
	other  = 200 // another process
	layer  = "TX - com.example/com.example.Main#0"
	period = 1000
)

// mk is one marker a thread wrote.
type mk struct {
	ts   int64
	tid  int32
	text string
}

// writeMarkers writes a trace of the app's process, FrameTimeline frames
// of ids 1…frames (frame i due at i·period, done 100 ns late), and the
// markers: the main thread's and the other process's on CPU 1, the
// RenderThread's on CPU 2, each CPU's in time order.
func writeMarkers(t testing.TB, ms []mk, frames int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1, trace.Monotonic: 1})
	w.ProcessTree(1, []tracewriter.Process{{PID: app, PPID: 1, Cmdline: pkg}, {PID: other, PPID: 1, Cmdline: "other"}},
		[]tracewriter.Thread{{TID: rt, TGID: app, Name: "RenderThread"}, {TID: worker, TGID: app, Name: "worker"}})
	for i := int64(1); i <= int64(frames); i++ {
		sf := tracewriter.SurfaceFrame{Token: i, DisplayToken: i + 1e6, PID: app, Layer: layer, Cookie: 2 * i}
		w.ExpectedSurfaceFrame(i*period, sf)
		w.FrameEnd(i*period+period, 2*i)
		sf.Cookie, sf.Jank, sf.Present = 2*i+1, trace.JankNone, trace.PresentOnTime
		w.ActualSurfaceFrame(i*period, sf)
		w.FrameEnd(i*period+period+100, 2*i+1)
	}
	var cpu1, cpu2 []tracewriter.Event
	for _, m := range ms {
		e := tracewriter.Event{Ts: m.ts, PID: m.tid, Print: m.text}
		if m.tid == rt {
			cpu2 = append(cpu2, e)
		} else {
			cpu1 = append(cpu1, e)
		}
	}
	byTs := func(x, y tracewriter.Event) int { return int(x.Ts - y.Ts) }
	slices.SortStableFunc(cpu1, byTs)
	slices.SortStableFunc(cpu2, byTs)
	w.Ftrace(tracewriter.Bundle{CPU: 1, Events: cpu1})
	w.Ftrace(tracewriter.Bundle{CPU: 2, Events: cpu2})
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// users is what each reader of the markers made of one trace.
type users struct {
	frames   string // frametiming: "id:cpu" of each frame; rejected slices
	sections string // sections: "name@tid[start,end]" of the app's; unended; malformed
	main     string // trace: the main thread's "name[start,end]depth"; rejected slices
}

// readUsers reads a trace as a session does, through all three readers,
// frametiming and sections from one Collector.
func readUsers(t testing.TB, data []byte) users {
	t.Helper()
	c := &frametiming.Collector{}
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg, MainThreads: true, Marker: c.Marker})
	if err != nil {
		t.Fatal(err)
	}
	var u users
	tm := frametiming.Compute(a, c)
	var fs []string
	for _, f := range tm.Frames {
		fs = append(fs, fmt.Sprintf("%d:%d", f.ID, f.CPUNs))
	}
	u.frames = strings.Join(fs, ", ") + " rejected " + fmt.Sprint(tm.Rejected)
	ss, unended := sections.Slices(c, a.AppPIDs, func(ns int64) (int64, bool) { v, err := a.Convert(ns, trace.Boottime); return v, err == nil })
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s@%d[%d,%d]", s.Name, s.TID, s.Start, s.End))
	}
	u.sections = fmt.Sprintf("%s unended %d malformed %d", strings.Join(out, ", "), unended, c.Malformed)
	_, sl := a.MainThread(app, a.Start, a.End)
	out = out[:0]
	for _, s := range sl {
		out = append(out, fmt.Sprintf("%s[%d,%d]%d", s.Name, s.Start, s.End, s.Depth))
	}
	rej := map[string]int{}
	for _, k := range slices.Sorted(maps.Keys(a.Rejected)) {
		if strings.HasPrefix(k, "slice") || strings.HasPrefix(k, "atrace") {
			rej[k] = a.Rejected[k]
		}
	}
	u.main = strings.Join(out, ", ") + " rejected " + fmt.Sprint(rej)
	return u
}

// The edge cases of atrace markers, read by the three readers. The format
// is the one libcutils' atrace writes to the kernel's trace_marker file
// ("B|<tgid>|<name>", "E|<tgid>", "S|<tgid>|<name>|<cookie>", …) and
// Perfetto's trace processor reads (google/perfetto
// src/trace_processor/importers/systrace/systrace_parser.h,
// ParseSystraceTracePoint); Macrobenchmark's figures are queries over what
// trace processor made of them (androidx/androidx benchmark-macro
// FrameTimingQuery.kt, TraceSectionMetric), so where the readers
// disagreed, trace processor's reading is the right one.
func TestEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		ms   []mk
		want users
	}{{
		// An end before any begin is the end of a slice begun before
		// the trace: every reader leaves it out (trace processor's
		// slice tracker drops an end on an empty stack too).
		name: "end without begin",
		ms: []mk{{50, app, "E|100"}, {1000, app, "B|100|Choreographer#doFrame 1"}, {1400, app, "E|100"},
			{1500, rt, "B|100|DrawFrame 1"}, {1700, rt, "E|100"}},
		want: users{
			frames:   "1:700 rejected map[]",
			sections: "Choreographer#doFrame 1@100[1000,1400], DrawFrame 1@101[1500,1700] unended 0 malformed 0",
			main:     "Choreographer#doFrame 1[1000,1400]0 rejected map[slice_end_without_begin:1]",
		},
	}, {
		// A begin that names its process but no slice ("B|100") begins
		// a slice: trace processor reads the name as empty and calls
		// it "[empty slice name]". Passing it over, as frametiming
		// did, paired DrawFrame's end with the inner slice's end and
		// made the frame's CPU time 100 ns short.
		name: "begin without a name",
		ms: []mk{{1000, app, "B|100|Choreographer#doFrame 1"}, {1100, app, "B|100"}, {1200, app, "E|100"}, {1400, app, "E|100"},
			{1500, rt, "B|100|DrawFrame 1"}, {1550, rt, "B|100"}, {1600, rt, "E|100"}, {1700, rt, "E|100"}},
		want: users{
			frames:   "1:700 rejected map[]",
			sections: "Choreographer#doFrame 1@100[1000,1400], [empty slice name]@100[1100,1200], DrawFrame 1@101[1500,1700], [empty slice name]@101[1550,1600] unended 0 malformed 0",
			main:     "Choreographer#doFrame 1[1000,1400]0, [empty slice name][1100,1200]1 rejected map[]",
		},
	}, {
		// "B" without a tgid, or with one that is no number, is no
		// begin (trace processor: a parse failure); every reader
		// agrees. "E|x" is an end: trace processor reads no tgid from
		// an end ("E" alone is one, aosp/1244409); sections took it
		// for malformed, left the doFrame open and lost the frame.
		name: "begin and end without a tgid",
		ms: []mk{{1000, app, "B|100|Choreographer#doFrame 1"}, {1100, app, "B"}, {1150, app, "B|x|bad"}, {1400, app, "E|x"},
			{1500, rt, "B|100|DrawFrame 1"}, {1700, rt, "E"}},
		want: users{
			frames:   "1:700 rejected map[]",
			sections: "Choreographer#doFrame 1@100[1000,1400], DrawFrame 1@101[1500,1700] unended 0 malformed 2",
			main:     "Choreographer#doFrame 1[1000,1400]0 rejected map[atrace_malformed:1]",
		},
	}, {
		// Slices still open at the end of the trace are left out by
		// all (Macrobenchmark: "non-terminating slices … are always
		// ignored"); frametiming counts the app's frame slices left
		// open and sections every open section of the app. (trace
		// builds a main thread's slices when MainThread is first
		// called, after Analyze has counted what it rejected.)
		name: "unfinished at the end",
		ms: []mk{{1000, app, "B|100|Choreographer#doFrame 1"}, {1100, app, "B|100|inflate"}, {1200, app, "E|100"}, {1400, app, "E|100"},
			{1500, rt, "B|100|DrawFrame 1"}, {1700, rt, "E|100"},
			{2000, app, "B|100|Choreographer#doFrame 2"}, {2100, app, "B|100|measure"},
			{2500, rt, "B|100|DrawFrame 2"}, {2600, other, "B|200|theirs"}},
		want: users{
			frames:   "1:700 rejected map[slice_unfinished:2]",
			sections: "Choreographer#doFrame 1@100[1000,1400], inflate@100[1100,1200], DrawFrame 1@101[1500,1700] unended 3 malformed 0",
			main:     "Choreographer#doFrame 1[1000,1400]0, inflate[1100,1200]1 rejected map[slice_unfinished:2]",
		},
	}, {
		// Nested slices pair innermost first; a nested resynced doFrame
		// is no frame of its own (androidx FrameTimingQuery); the
		// RenderThread's markers come on another CPU, read after the
		// main thread's.
		name: "nested",
		ms: []mk{{1000, app, "B|100|Choreographer#doFrame 1"}, {1010, app, "B|100|Choreographer#doFrame - resynced to 2 in 0.1ms"},
			{1020, app, "B|100|traversal"}, {1030, app, "B|100|draw"}, {1040, app, "E|100"}, {1050, app, "E|100"}, {1300, app, "E|100"}, {1400, app, "E|100"},
			{1500, rt, "B|100|DrawFrame 1"}, {1510, rt, "B|100|flush commands"}, {1600, rt, "E|100"}, {1700, rt, "E|100"}},
		want: users{
			frames:   "1:700 rejected map[]",
			sections: "Choreographer#doFrame 1@100[1000,1400], Choreographer#doFrame - resynced to 2 in 0.1ms@100[1010,1300], traversal@100[1020,1050], draw@100[1030,1040], DrawFrame 1@101[1500,1700], flush commands@101[1510,1600] unended 0 malformed 0",
			main:     "Choreographer#doFrame 1[1000,1400]0, Choreographer#doFrame - resynced to 2 in 0.1ms[1010,1300]1, traversal[1020,1050]2, draw[1030,1040]3 rejected map[]",
		},
	}, {
		// "B|0|name" names no process (tgid 0, which trace processor
		// reads as such): the slice is its writer's, whose process is
		// itself on the main thread; frametiming passed it over as no
		// begin and paired DrawFrame's end with its end.
		name: "tgid 0",
		ms: []mk{{1000, app, "B|100|Choreographer#doFrame 1"}, {1100, app, "B|0|zero"}, {1200, app, "E|0"}, {1400, app, "E|100"},
			{1500, rt, "B|100|DrawFrame 1"}, {1550, rt, "B|0|zero"}, {1600, rt, "E|0"}, {1700, rt, "E|100"}},
		want: users{
			frames:   "1:700 rejected map[]",
			sections: "Choreographer#doFrame 1@100[1000,1400], zero@100[1100,1200], DrawFrame 1@101[1500,1700] unended 0 malformed 0",
			main:     "Choreographer#doFrame 1[1000,1400]0, zero[1100,1200]1 rejected map[]",
		},
	}, {
		// Async sections pair by process, name and cookie, on any
		// thread; counters are no slices.
		name: "async and counters",
		ms: []mk{{1000, app, "B|100|Choreographer#doFrame 1"}, {1010, app, "S|100|load|7"}, {1020, app, "C|100|queue|3"}, {1400, app, "E|100"},
			{1500, rt, "B|100|DrawFrame 1"}, {1600, rt, "F|100|load|7"}, {1700, rt, "E|100"}},
		want: users{
			frames:   "1:700 rejected map[]",
			sections: "Choreographer#doFrame 1@100[1000,1400], load@0[1010,1600], DrawFrame 1@101[1500,1700] unended 0 malformed 0",
			main:     "Choreographer#doFrame 1[1000,1400]0 rejected map[]",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := readUsers(t, writeMarkers(t, tc.ms, 2))
			if got.frames != tc.want.frames {
				t.Errorf("frametiming:\n got %s\nwant %s", got.frames, tc.want.frames)
			}
			if got.sections != tc.want.sections {
				t.Errorf("sections:\n got %s\nwant %s", got.sections, tc.want.sections)
			}
			if got.main != tc.want.main {
				t.Errorf("trace main thread:\n got %s\nwant %s", got.main, tc.want.main)
			}
		})
	}
}

// randomMarkers are the markers of a random session: nested slices on
// the main thread (a doFrame of each frame), the RenderThread (a DrawFrame
// of most) and a worker of the app, and on another process's thread, with
// what a phone also writes now and then: an end of a slice begun before
// the trace, a bare "E", "E|x", a begin without a name, one of tgid 0,
// counters, async sections, and slices left open at the end.
func randomMarkers(rng *rand.Rand, frames int) []mk {
	var out []mk
	for _, tid := range []int32{app, rt, worker, other} {
		tgid := strconv.Itoa(app)
		if tid == other {
			tgid = strconv.Itoa(other)
		}
		ts := int64(period/2 + rng.IntN(50))
		depth := 0
		add := func(text string) {
			out = append(out, mk{ts, tid, text})
			ts += 1 + rng.Int64N(40)
		}
		if rng.IntN(3) == 0 {
			add("E|" + tgid)
		}
		for id := 1; id <= frames; id++ {
			ts = max(ts, int64(id*period)+rng.Int64N(100))
			switch tid {
			case app:
				add("B|" + tgid + "|Choreographer#doFrame " + strconv.Itoa(id))
			case rt:
				if rng.IntN(8) == 0 {
					continue
				}
				add("B|" + tgid + "|DrawFrame " + strconv.Itoa(id))
			default:
				add("B|" + tgid + "|work " + strconv.Itoa(id))
			}
			depth++
			for n := rng.IntN(12); n > 0; n-- {
				switch k := rng.IntN(20); {
				case k < 8:
					add("B|" + tgid + "|" + []string{"inflate", "measure", "layout", "draw", "bind"}[rng.IntN(5)])
					depth++
				case k < 14 && depth > 1:
					add([]string{"E|" + tgid, "E|" + tgid, "E", "E|x"}[rng.IntN(4)])
					depth--
				case k == 15:
					add("B|" + tgid)
					depth++
				case k == 16:
					add("B|0|zero")
					depth++
				case k == 17:
					add("C|" + tgid + "|queue|" + strconv.Itoa(rng.IntN(9)))
				case k == 18:
					add("S|" + tgid + "|load|" + strconv.Itoa(rng.IntN(3)))
				case k == 19:
					add("F|" + tgid + "|load|" + strconv.Itoa(rng.IntN(3)))
				}
			}
			for ; depth > 0 && (id < frames || rng.IntN(3) > 0); depth-- {
				add("E|" + tgid)
			}
		}
	}
	return out
}

// refSlice is a slice the reference pairing finds.
type refSlice struct {
	name       string
	pid, tid   int32
	start, end int64
	depth      int
}

// pairRef pairs markers the way trace processor does, written again
// plainly: per thread in time order, a begin ("B|<tgid>[|<name>]", tgid a
// number; no name is "[empty slice name]", tgid 0 the writer's own) opens
// a slice, an end ("E", "E|…") closes the innermost open one. It returns
// the slices ended, those left open, and per thread the ends with no slice
// open.
func pairRef(ms []mk) (done, open []refSlice, lost map[int32]int) {
	lost = map[int32]int{}
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(x, y mk) int { return cmp.Or(cmp.Compare(x.tid, y.tid), cmp.Compare(x.ts, y.ts)) })
	var stack []refSlice
	for i, m := range ms {
		if i > 0 && m.tid != ms[i-1].tid {
			open, stack = append(open, stack...), nil
		}
		f := strings.SplitN(m.text, "|", 3)
		switch {
		case f[0] == "E":
			if len(stack) == 0 {
				lost[m.tid]++
			} else {
				s := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				s.end = m.ts
				done = append(done, s)
			}
		case f[0] == "B" && len(f) > 1:
			tgid, err := strconv.ParseUint(f[1], 10, 31)
			if err != nil {
				continue
			}
			s := refSlice{name: "[empty slice name]", pid: int32(tgid), tid: m.tid, start: m.ts, depth: len(stack)}
			if len(f) == 3 && f[2] != "" {
				s.name = f[2]
			}
			if s.pid == 0 {
				s.pid = m.tid
			}
			stack = append(stack, s)
		}
	}
	return done, append(open, stack...), lost
}

// On 20 random sessions the three readers find the slices the reference
// pairing finds: sections every slice of the app's threads, trace every
// slice of its main thread, frametiming the frames Macrobenchmark's rule
// makes of the doFrame and DrawFrame slices (here every frame has its
// FrameTimeline frames); frametiming counts the frame slices left open,
// trace the main thread's slices left open and its ends without a begin.
func TestRandomStreams(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 37))
			frames := 3 + rng.IntN(40)
			ms := randomMarkers(rng, frames)
			got := readUsers(t, writeMarkers(t, ms, frames))
			done, open, lost := pairRef(ms)
			var sec, main []string
			firstUI := map[string]refSlice{}
			var rts []refSlice
			for _, s := range done {
				if s.pid == app {
					sec = append(sec, fmt.Sprintf("%s@%d[%d,%d]", s.name, s.tid, s.start, s.end))
				}
				if s.tid == app && s.pid == app {
					main = append(main, fmt.Sprintf("%s[%d,%d]%d", s.name, s.start, s.end, s.depth))
				}
				id, ok := strings.CutPrefix(s.name, "Choreographer#doFrame ")
				if _, seen := firstUI[id]; ok && s.tid == app && !seen {
					firstUI[id] = s
				}
				if strings.HasPrefix(s.name, "DrawFrame ") && s.tid == rt {
					rts = append(rts, s)
				}
			}
			var fs []string
			for _, r := range rts {
				id := strings.TrimPrefix(r.name, "DrawFrame ")
				if u, ok := firstUI[id]; ok {
					fs = append(fs, fmt.Sprintf("%s:%d", id, r.end-u.start))
				}
			}
			unfinished, mainOpen := 0, 0
			for _, s := range open {
				if s.tid == app {
					mainOpen++
				}
				if s.pid == app && (strings.HasPrefix(s.name, "Choreographer#doFrame") || strings.HasPrefix(s.name, "DrawFrame")) {
					unfinished++
				}
			}
			gotFrames, gotRejected, _ := strings.Cut(got.frames, " rejected ")
			want := fmt.Sprint(map[string]int{"slice_unfinished": unfinished})
			if unfinished == 0 {
				want = "map[]"
			}
			if sortedList(gotFrames) != sortedList(strings.Join(fs, ", ")) || gotRejected != want {
				t.Errorf("frametiming:\n got %s rejected %s\nwant %s rejected %s", gotFrames, gotRejected, strings.Join(fs, ", "), want)
			}
			gotSec, _, _ := strings.Cut(got.sections, " unended ")
			gotSec = strings.Join(slices.DeleteFunc(strings.Split(gotSec, ", "), func(s string) bool { return strings.HasPrefix(s, "load@0") }), ", ")
			if sortedList(gotSec) != sortedList(strings.Join(sec, ", ")) {
				t.Errorf("sections:\n got %s\nwant %s", gotSec, strings.Join(sec, ", "))
			}
			gotMain, gotRejected, _ := strings.Cut(got.main, " rejected ")
			rej := map[string]int{"slice_unfinished": mainOpen, "slice_end_without_begin": lost[app]}
			maps.DeleteFunc(rej, func(_ string, n int) bool { return n == 0 })
			want = fmt.Sprint(rej)
			if sortedList(gotMain) != sortedList(strings.Join(main, ", ")) || gotRejected != want {
				t.Errorf("trace main thread:\n got %s rejected %s\nwant %s rejected %s", gotMain, gotRejected, strings.Join(main, ", "), want)
			}
		})
	}
}

// sortedList is the comma-separated items of s, sorted.
func sortedList(s string) string {
	w := strings.Split(s, ", ")
	slices.Sort(w)
	return strings.Join(w, ", ")
}

const nowInAndroid = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"

// On the real Android 13 trace of Now in Android (the app's own sections,
// no doFrame or DrawFrame slice: atrace's view and gfx categories were
// off), the main thread's slices sections pairs from the Collector are
// those trace keeps of it, one for one, and the figures each reader gives
// are those each gave with a Collector of its own: 0 frames with CPU time
// and no frame slice rejected, and the number of sections, sections left
// open and malformed markers.
func TestNowInAndroid(t *testing.T) {
	data := fixtures.Read(t, nowInAndroid)
	const pkg = "com.google.samples.apps.nowinandroid.demo"
	c := &frametiming.Collector{}
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg, MainThreads: true, Marker: c.Marker})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.AppPIDs) != 1 {
		t.Fatalf("app pids %v", a.AppPIDs)
	}
	pid := a.AppPIDs[0]
	ss, unended := sections.Slices(c, a.AppPIDs, func(ns int64) (int64, bool) { v, err := a.Convert(ns, trace.Boottime); return v, err == nil })
	var fromSections, fromTrace []string
	for _, s := range ss {
		if s.TID == pid {
			fromSections = append(fromSections, fmt.Sprintf("%s[%d,%d]", s.Name, s.Start, s.End))
		}
	}
	_, sl := a.MainThread(pid, a.Start, a.End)
	for _, s := range sl {
		fromTrace = append(fromTrace, fmt.Sprintf("%s[%d,%d]", s.Name, s.Start, s.End))
	}
	slices.Sort(fromSections)
	slices.Sort(fromTrace)
	if len(fromTrace) < 1000 || !slices.Equal(fromSections, fromTrace) {
		t.Errorf("main thread: sections pairs %d slices, trace keeps %d", len(fromSections), len(fromTrace))
	}
	tm := frametiming.Compute(a, c)
	cpu := 0
	for _, f := range tm.Frames {
		if f.HasCPU {
			cpu++
		}
	}
	got := fmt.Sprintf("%d sections, %d unended, %d malformed; %d frames, %d with CPU time, rejected %v", len(ss), unended, c.Malformed, len(tm.Frames), cpu, tm.Rejected)
	if want := "3123 sections, 0 unended, 0 malformed; 738 frames, 0 with CPU time, rejected map[]"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
