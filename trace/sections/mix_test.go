package sections_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/sections"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// The processes of a mixed trace: the app (main thread, two workers) and
// another process whose sections are not the app's.
const (
	mixApp   = 500
	mixOther = 700
)

var mixNames = []string{"feed:bind", "feed:image", "db:query", "net:fetch", "layout", "feed:bind"}

// mixGen writes one random trace whose sections are written every way an
// app can: atrace markers on threads, Android 14's named-track markers,
// and TrackEvent slices on thread, process and named tracks, several
// sequences interning names under the same iids, with their state cleared
// mid-trace. want is every section it wrote that ended, of the app.
type mixGen struct {
	r      *rand.Rand
	w      *tracewriter.Writer
	prints []tracewriter.Event
	want   []sections.Slice
	// clock is each lane's time (a thread's markers, a track's events, a
	// named track's cookie): lanes overlap, a lane's events follow one
	// another.
	clock map[string]int64
}

// tick is a time of lane after every one handed out to it before.
func (g *mixGen) tick(lane string) int64 {
	t, ok := g.clock[lane]
	if !ok {
		t = 1000 + g.r.Int64N(100_000)
	}
	t += 1 + g.r.Int64N(1000)
	g.clock[lane] = t
	return t
}

// tree writes nested slices of lane, at most depth deep, through begin
// and end; each slice of the app is in want with pid and tid.
func (g *mixGen) tree(lane string, depth int, pid, tid int32, begin func(ts int64, name string), end func(ts int64)) {
	for n := g.r.IntN(4); n > 0; n-- {
		name := mixNames[g.r.IntN(len(mixNames))]
		s := sections.Slice{Name: name, PID: pid, TID: tid, Start: g.tick(lane)}
		begin(s.Start, name)
		if depth > 0 && g.r.IntN(2) == 0 {
			g.tree(lane, depth-1, pid, tid, begin, end)
		}
		s.End = g.tick(lane)
		end(s.End)
		g.keep(s)
	}
}

func (g *mixGen) print(ts int64, tid int32, text string) {
	g.prints = append(g.prints, tracewriter.Event{Ts: ts, PID: tid, Print: text})
}

// atrace writes a thread's sections as "B|"/"E|" markers, and now and
// then an instant ("I|").
func (g *mixGen) atrace(pid, tid int32) {
	p, lane := strconv.Itoa(int(pid)), "thread "+strconv.Itoa(int(tid))
	g.tree(lane, 3, pid, tid, func(ts int64, name string) { g.print(ts, tid, "B|"+p+"|"+name) },
		func(ts int64) { g.print(ts, tid, "E|"+p) })
	if g.r.IntN(2) == 0 {
		ts := g.tick(lane)
		g.print(ts, tid, "I|"+p+"|feed:image")
		g.keep(sections.Slice{Name: "feed:image", PID: pid, TID: tid, Start: ts, End: ts})
	}
}

// named writes async sections on a process's named tracks, begun and
// ended by any of its threads, overlapping, cookies reused across tracks,
// with instants, counters and markers that are no section between.
func (g *mixGen) named(pid int32, tids []int32) {
	p := strconv.Itoa(int(pid))
	for k := g.r.IntN(8); k > 0; k-- {
		track := []string{"net", "db"}[g.r.IntN(2)]
		name := mixNames[g.r.IntN(len(mixNames))]
		cookie := strconv.Itoa(g.r.IntN(3))
		lane := fmt.Sprint(pid, track, cookie)
		start := g.tick(lane)
		tid := tids[g.r.IntN(len(tids))]
		switch g.r.IntN(4) {
		case 0:
			g.print(start, tid, "N|"+p+"|"+track+"|"+name)
			g.keep(sections.Slice{Name: name, PID: pid, Start: start, End: start})
			continue
		case 1:
			g.print(start, tid, "C|"+p+"|"+track+"-depth|"+cookie)
		}
		// One open slice per track and cookie at a time, as the API
		// makes it (a cookie is the caller's id of one async section).
		g.print(start, tid, "G|"+p+"|"+track+"|"+name+"|"+cookie)
		end := g.tick(lane) + g.r.Int64N(5000) // others begin and end meanwhile
		g.clock[lane] = end
		if g.r.IntN(2) == 0 {
			g.print(end, tids[g.r.IntN(len(tids))], "H|"+p+"|"+track+"|"+cookie)
		} else {
			g.print(end, tids[g.r.IntN(len(tids))], "H|"+p+"|"+track+"|"+name+"|"+cookie)
		}
		g.keep(sections.Slice{Name: name, PID: pid, Start: start, End: end})
	}
}

func (g *mixGen) keep(s sections.Slice) {
	if s.PID == mixApp {
		g.want = append(g.want, s)
	}
}

// teLane is one TrackEvent writer: its own sequence, its own interning.
type teLane struct {
	seq   uint32
	track uint64 // its default track
	iids  map[string]uint64
	next  uint64
	clear bool // the next packet clears the sequence's state
}

// trackEvents writes the sections of track uuid (process pid, thread tid:
// 0 for a process's or a named track) as TrackEvent packets of lane l.
func (g *mixGen) trackEvents(l *teLane, uuid uint64, pid, tid int32) {
	write := func(ts int64, e tracewriter.TrackEvent) {
		g.w.Sequence = l.seq
		if l.clear || g.r.IntN(20) == 0 {
			// Incremental state cleared: the names are interned anew, in
			// another order, the old iids now other names or none.
			e.Clear, e.Defaults, l.clear = true, l.track, false
			l.iids, l.next = map[string]uint64{}, uint64(1+g.r.IntN(3))
		}
		if uuid != l.track || g.r.IntN(3) > 0 {
			e.Track = uuid
		}
		if e.Type != tracewriter.SliceEndType && g.r.IntN(4) > 0 {
			iid, ok := l.iids[e.Name]
			if !ok {
				iid = l.next
				l.next++
				l.iids[e.Name] = iid
				e.Intern = map[uint64]string{iid: e.Name}
			}
			e.Name, e.NameIID = "", iid
		}
		g.w.WriteTrackEvent(ts, e)
	}
	g.tree(fmt.Sprint("track ", uuid), 3, pid, tid, func(ts int64, name string) {
		write(ts, tracewriter.TrackEvent{Type: tracewriter.SliceBeginType, Name: name})
	}, func(ts int64) {
		write(ts, tracewriter.TrackEvent{Type: tracewriter.SliceEndType})
	})
	if g.r.IntN(2) == 0 {
		ts := g.tick(fmt.Sprint("track ", uuid))
		write(ts, tracewriter.TrackEvent{Type: tracewriter.InstantType, Name: "feed:bind"})
		g.keep(sections.Slice{Name: "feed:bind", PID: pid, TID: tid, Start: ts, End: ts})
	}
}

// mixTrace writes one random trace of seed and the sections it holds.
func mixTrace(t *testing.T, seed uint64) ([]byte, []sections.Slice) {
	t.Helper()
	var buf bytes.Buffer
	g := &mixGen{r: rand.New(rand.NewPCG(seed, 37)), w: tracewriter.New(&buf), clock: map[string]int64{}}
	g.w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1, trace.Monotonic: 1})
	g.w.SystemInfo("perfgate/mix", "6.1", 34)
	tracks := []tracewriter.Track{
		{UUID: 11, PID: mixApp, TID: mixApp, Name: "main"},
		{UUID: 12, PID: mixApp, TID: mixApp + 1},
		{UUID: 13, PID: mixApp},                           // the app's process track
		{UUID: 14, Parent: 13, Name: "feed"},              // a named track of the app
		{UUID: 15, PID: mixOther, TID: mixOther + 1},      // another process's thread
		{UUID: 16, Parent: 17, Name: "orphan of the app"}, // its parent comes later
	}
	lanes := map[uint64]*teLane{}
	for i, tr := range tracks {
		g.w.Sequence = uint32(100 + i)
		g.w.TrackDescriptor(tr)
		lanes[tr.UUID] = &teLane{seq: uint32(100 + i), track: tr.UUID, clear: true}
	}
	for round := 0; round < 6; round++ {
		for _, k := range g.r.Perm(9) {
			switch k {
			case 0, 1:
				g.atrace(mixApp, mixApp+int32(k))
			case 2:
				g.atrace(mixOther, mixOther)
			case 3:
				g.named(mixApp, []int32{mixApp, mixApp + 1})
			case 4:
				g.named(mixOther, []int32{mixOther})
			default:
				tr := tracks[g.r.IntN(len(tracks))]
				pid := tr.PID
				if tr.Parent != 0 {
					pid = mixApp // the named tracks' parents are the app's
				}
				g.trackEvents(lanes[tr.UUID], tr.UUID, pid, tr.TID)
			}
		}
	}
	g.w.Sequence = 99
	g.w.TrackDescriptor(tracewriter.Track{UUID: 17, PID: mixApp, Name: "late parent"})
	// The markers go out per CPU, each CPU's in time order, in bundles
	// of the CPUs in turn: a thread that moves between CPUs has its
	// markers read out of time order.
	slices.SortFunc(g.prints, func(a, b tracewriter.Event) int { return cmp.Compare(a.Ts, b.Ts) })
	var cpus [4][]tracewriter.Event
	for _, e := range g.prints {
		k := g.r.IntN(len(cpus))
		cpus[k] = append(cpus[k], e)
	}
	for left := len(g.prints); left > 0; {
		k := g.r.IntN(len(cpus))
		n := min(len(cpus[k]), 1+g.r.IntN(40))
		if n == 0 {
			continue
		}
		g.w.Ftrace(tracewriter.Bundle{CPU: uint32(k), Events: cpus[k][:n]})
		cpus[k], left = cpus[k][n:], left-n
	}
	if err := g.w.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), g.want
}

func sliceOrder(x, y sections.Slice) int {
	return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End), cmp.Compare(x.TID, y.TID), cmp.Compare(x.Name, y.Name))
}

// On 20 random traces that write sections as atrace markers, Android 14
// named-track markers and TrackEvent slices at once (nested, on several
// threads and tracks, names interned per sequence and the interning
// cleared mid-trace, markers out of order across CPUs), the app's sections
// are those the writer wrote, each with its process and thread (none on
// a process's or a named track), and another process's are left out.
func TestMixedKindsMatchWriter(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		data, want := mixTrace(t, seed)
		if seed%4 == 0 {
			// The ring buffer read twice: one trace after the other in
			// one file, each section in both, counted once.
			data = append(data, data...)
		}
		var c sections.Collector
		if _, err := trace.Analyze(bytes.NewReader(data), trace.Options{Marker: c.Marker, Packet: c.Packet}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, unended := sections.Slices(&c, []int32{mixApp}, func(ns int64) (int64, bool) { return ns, true })
		slices.SortFunc(got, sliceOrder)
		slices.SortFunc(want, sliceOrder)
		if unended != 0 || c.Malformed != 0 || !slices.Equal(got, want) {
			t.Errorf("seed %d: %d unended, %d malformed; %d sections, want %d", seed, unended, c.Malformed, len(got), len(want))
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("first difference: %+v, want %+v", got[i], want[i])
					break
				}
			}
		}
	}
}
