package trace_test

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
)

const nowInAndroid = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"

// A protobuf walk of its own, written apart from the package's, to check
// the package against: varints, lengths and fixed fields, nothing more.

type wfield struct {
	num  int
	wire int
	v    uint64
	b    []byte
}

func wvarint(b []byte, i int) (uint64, int) {
	var v uint64
	for s := 0; ; s += 7 {
		c := b[i]
		i++
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			return v, i
		}
	}
}

func wfields(b []byte) []wfield {
	var out []wfield
	for i := 0; i < len(b); {
		k, j := wvarint(b, i)
		f := wfield{num: int(k >> 3), wire: int(k & 7)}
		switch f.wire {
		case 0:
			f.v, j = wvarint(b, j)
		case 1:
			f.b, j = b[j:j+8], j+8
		case 2:
			n, k := wvarint(b, j)
			f.b, j = b[k:k+int(n)], k+int(n)
		case 5:
			f.b, j = b[j:j+4], j+4
		default:
			panic("wire type " + strconv.Itoa(f.wire))
		}
		out = append(out, f)
		i = j
	}
	return out
}

func wget(fs []wfield, num int) (wfield, bool) {
	for _, f := range fs {
		if f.num == num {
			return f, true
		}
	}
	return wfield{}, false
}

// nia is what the independent walk finds in the Now in Android trace.
type nia struct {
	packets, ftPackets, bundles int
	starts, ends                int
	frames                      map[int64][2]int64 // token → [start, end] of pid 9305's actual frames
	jank                        map[int64]uint64
	byType                      map[uint64]int // jank bitmask → frames of pid 9305
	prints                      []niaPrint
}

type niaPrint struct {
	ts  int64
	tid int
	buf string
}

func walkNowInAndroid(t *testing.T, data []byte) *nia {
	t.Helper()
	n := &nia{frames: map[int64][2]int64{}, jank: map[int64]uint64{}, byType: map[uint64]int{}}
	type start struct {
		token int64
		ts    int64
		jank  uint64
	}
	open := map[uint64]start{}
	for _, p := range wfields(data) {
		n.packets++
		fs := wfields(p.b)
		ts, _ := wget(fs, 8)
		if ft, ok := wget(fs, 76); ok {
			n.ftPackets++
			for _, e := range wfields(ft.b) {
				ef := wfields(e.b)
				cookie, _ := wget(ef, 1)
				switch e.num {
				case 5:
					n.ends++
					s, ok := open[cookie.v]
					if ok && s.token != 0 {
						n.frames[s.token] = [2]int64{s.ts, int64(ts.v)}
						n.jank[s.token] = s.jank
						n.byType[s.jank]++
					}
					delete(open, cookie.v)
				default:
					n.starts++
					pid, _ := wget(ef, 4)
					if e.num == 4 && pid.v == 9305 {
						tok, _ := wget(ef, 2)
						jt, _ := wget(ef, 9)
						open[cookie.v] = start{int64(tok.v), int64(ts.v), jt.v}
					} else {
						open[cookie.v] = start{}
					}
				}
			}
		}
		if fb, ok := wget(fs, 1); ok {
			n.bundles++
			for _, e := range wfields(fb.b) {
				if e.num != 2 {
					continue
				}
				ef := wfields(e.b)
				pr, ok := wget(ef, 3)
				if !ok {
					continue
				}
				ets, _ := wget(ef, 1)
				pid, _ := wget(ef, 2)
				buf, _ := wget(wfields(pr.b), 2)
				n.prints = append(n.prints, niaPrint{int64(ets.v), int(pid.v), string(buf.b)})
			}
		}
	}
	return n
}

// slicesOf rebuilds a thread's atrace slices from its B/E markers.
func (n *nia) slicesOf(tid int) []trace.Slice {
	var ps []niaPrint
	for _, p := range n.prints {
		if p.tid == tid {
			ps = append(ps, p)
		}
	}
	slices.SortStableFunc(ps, func(a, b niaPrint) int { return cmp.Compare(a.ts, b.ts) })
	var stack []trace.Slice
	var out []trace.Slice
	for _, p := range ps {
		parts := strings.SplitN(strings.TrimRight(p.buf, "\n"), "|", 3)
		switch parts[0] {
		case "B":
			stack = append(stack, trace.Slice{Name: parts[2], TID: int32(tid), Start: p.ts, Depth: len(stack)})
		case "E":
			if len(stack) > 0 {
				s := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				s.End = p.ts
				out = append(out, s)
			}
		}
	}
	return out
}

// TestNowInAndroidTrace reads the real Pixel 7 Pro trace (Android 13,
// FrameTimeline and atrace, no sched events) and checks the analysis
// against an independent walk of the same bytes.
func TestNowInAndroidTrace(t *testing.T) {
	parallel(t)
	path := fixtures.Path(t, nowInAndroid)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := walkNowInAndroid(t, data)
	// The facts SOURCES.md gives for the file.
	if n.packets != 7676 || n.ftPackets != 7475 || n.bundles != 177 {
		t.Fatalf("independent walk: %d packets, %d frame_timeline_event, %d ftrace bundles; SOURCES.md says 7676, 7475, 177", n.packets, n.ftPackets, n.bundles)
	}

	const pkg = "com.google.samples.apps.nowinandroid.demo"
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	if a.Packets != n.packets {
		t.Errorf("packets = %d, want %d", a.Packets, n.packets)
	}
	if a.Device != "google/cheetah/cheetah:13/TQ3A.230705.001/10216780:user/release-keys" || a.SDK != 33 || a.TraceClock != trace.Boottime {
		t.Errorf("device %q sdk %d clock %v", a.Device, a.SDK, a.TraceClock)
	}
	if fmt.Sprint(a.AppPIDs) != "[9305]" || fmt.Sprint(a.Sources) != "[frametimeline atrace]" {
		t.Errorf("app pids %v, sources %v", a.AppPIDs, a.Sources)
	}
	if _, ok := a.NotMeasured["thread_states"]; !ok {
		t.Errorf("thread states should be not measured (the trace has no sched events): %v", a.NotMeasured)
	}
	if got := a.Rejected["frametimeline_no_end"]; got != n.starts-n.ends {
		t.Errorf("frames without an end = %d, want %d", got, n.starts-n.ends)
	}

	if len(a.Layers) != 1 {
		t.Fatalf("layers = %+v, want the app's one", a.Layers)
	}
	l := a.Layers[0]
	wantTypes := map[string]int{}
	janky, app := 0, 0
	for mask, c := range n.byType {
		jt := trace.JankType(mask)
		if !jt.Janky() {
			continue
		}
		janky += c
		if jt.App() {
			app += c
		}
		for _, name := range jt.Names() {
			wantTypes[name] += c
		}
	}
	if l.Frames != len(n.frames) || l.Janky != janky || l.AppJank != app || fmt.Sprint(l.ByType) != fmt.Sprint(wantTypes) {
		t.Errorf("layer %q: frames %d janky %d app %d %v; want %d %d %d %v", l.Name, l.Frames, l.Janky, l.AppJank, l.ByType, len(n.frames), janky, app, wantTypes)
	}
	// Counted apart: 11 App Deadline Missed, 45 Buffer Stuffing, 5 both
	// and 677 without jank make the 738 frames that ended (one more never
	// did).
	if l.Frames != 738 || app != 16 || wantTypes["Buffer Stuffing"] != 50 {
		t.Errorf("frames %d, app jank %d, buffer stuffing %d; want 738, 16, 50", l.Frames, app, wantTypes["Buffer Stuffing"])
	}

	mainSlices := n.slicesOf(9305)
	checked := 0
	for _, jf := range a.Janky {
		want := n.frames[jf.Token]
		if jf.Start != want[0] || jf.End != want[1] || uint64(jf.Jank) != n.jank[jf.Token] {
			t.Errorf("frame %d: [%d,%d] %v, want [%d,%d] %v", jf.Token, jf.Start, jf.End, jf.Jank, want[0], want[1], trace.JankType(n.jank[jf.Token]))
		}
		if jf.MainThread != nil {
			t.Errorf("frame %d has thread states from a trace without sched events", jf.Token)
		}
		// No Choreographer#doFrame in this trace (the view category was
		// off): the main thread's slices during the frame, by overlap.
		type ov struct {
			s trace.Slice
			d int64
		}
		var cands []ov
		for _, s := range mainSlices {
			if d := min(s.End, jf.End) - max(s.Start, jf.Start); d > 0 {
				cands = append(cands, ov{s, d})
			}
		}
		slices.SortStableFunc(cands, func(x, y ov) int { return cmp.Or(cmp.Compare(y.d, x.d), cmp.Compare(x.s.Start, y.s.Start)) })
		var top []trace.Slice
		for _, c := range cands[:min(5, len(cands))] {
			top = append(top, c.s)
		}
		if fmt.Sprint(jf.Slices) != fmt.Sprint(top) {
			t.Errorf("frame %d slices\n%v\nwant\n%v", jf.Token, jf.Slices, top)
		}
		if len(top) > 0 {
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d janky frames had slices to compare", checked)
	}

	// One frame read by hand: token 154407810, App Deadline Missed, Late
	// Present, its longest overlapping slice Recomposer:recompose.
	var f *trace.JankyFrame
	for i := range a.Janky {
		if a.Janky[i].Token == 154407810 {
			f = &a.Janky[i]
		}
	}
	if f == nil || f.Jank != trace.JankAppDeadlineMissed || f.Present != trace.PresentLate || f.Start != 578090134777002 || f.End != 578090183018539 ||
		len(f.Slices) == 0 || f.Slices[0].Name != "Recomposer:recompose" {
		t.Errorf("frame 154407810 = %+v", f)
	}
}
