// Package tracewriter writes Perfetto traces: the protobuf wire format of
// perfetto's Trace message, field by field, for the packets package trace
// reads (FrameTimeline, ftrace sched/atrace/binder events in plain and
// compact form, process trees, clock snapshots, TrackEvent slices). The
// files open in the Perfetto UI (ui.perfetto.dev) like a phone's.
//
//	w := tracewriter.New(f)
//	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: boot, trace.Monotonic: mono})
//	w.ExpectedSurfaceFrame(t0, tracewriter.SurfaceFrame{Cookie: 1, Token: 10, PID: 4242, Layer: "TX - com.example/com.example.Main#0"})
//	w.FrameEnd(t1, 1)
//	if err := w.Err(); err != nil { … }
package tracewriter

import (
	"io"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/trace"
)

// Writer writes one trace. Every packet goes straight to the io.Writer (wrap
// it in a bufio.Writer for speed); nothing is held back.
type Writer struct {
	w   io.Writer
	err error
	pkt []byte
	out []byte
	// Sequence is the trusted_packet_sequence_id of the packets written
	// (1 unless set).
	Sequence uint32
	// Written counts the bytes written so far.
	Written int64
}

// New writes a trace to w.
func New(w io.Writer) *Writer { return &Writer{w: w, Sequence: 1} }

// Err is the first write error; after one, nothing more is written.
func (w *Writer) Err() error { return w.err }

// Raw writes data as one TracePacket as it is.
func (w *Writer) Raw(data []byte) {
	if w.err != nil {
		return
	}
	w.out = protowire.AppendTag(w.out[:0], 1, protowire.BytesType)
	w.out = protowire.AppendBytes(w.out, data)
	n, err := w.w.Write(w.out)
	w.Written += int64(n)
	w.err = err
}

// packet starts a packet with its sequence id and, when clock is not 0, its
// timestamp on that clock.
func (w *Writer) packet(ts int64, clock trace.Clock) []byte {
	b := w.pkt[:0]
	if clock != 0 {
		b = appendVarint(b, 8, uint64(ts))
		if clock != trace.Boottime {
			b = appendVarint(b, 58, uint64(clock))
		}
	}
	return appendVarint(b, 10, uint64(w.Sequence))
}

func (w *Writer) flush(b []byte) {
	w.pkt = b
	w.Raw(b)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendString(b []byte, num protowire.Number, v string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendVarint(b, num, 1)
}

// appendPacked writes a packed repeated varint field.
func appendPacked(b []byte, num protowire.Number, vs []uint64) []byte {
	if len(vs) == 0 {
		return b
	}
	var inner []byte
	for _, v := range vs {
		inner = protowire.AppendVarint(inner, v)
	}
	return appendBytes(b, num, inner)
}

// ClockSnapshot writes the clocks' readings at one instant; boottime is the
// trace clock.
func (w *Writer) ClockSnapshot(clocks map[trace.Clock]int64) {
	ids := make([]int, 0, len(clocks))
	for c := range clocks {
		ids = append(ids, int(c))
	}
	sort.Ints(ids)
	var snap []byte
	for _, id := range ids {
		var c []byte
		c = appendVarint(c, 1, uint64(id))
		c = appendVarint(c, 2, uint64(clocks[trace.Clock(id)]))
		snap = appendBytes(snap, 1, c)
	}
	snap = appendVarint(snap, 2, uint64(trace.Boottime))
	ts := clocks[trace.Boottime]
	b := w.packet(ts, trace.Boottime)
	w.flush(appendBytes(b, 6, snap))
}

// SystemInfo writes the device's build fingerprint, kernel release and API
// level.
func (w *Writer) SystemInfo(fingerprint, kernelRelease string, sdk int) {
	var uts []byte
	uts = appendString(uts, 1, "Linux")
	uts = appendString(uts, 3, kernelRelease)
	var si []byte
	si = appendBytes(si, 1, uts)
	si = appendString(si, 2, fingerprint)
	if sdk > 0 {
		si = appendVarint(si, 5, uint64(sdk))
	}
	w.flush(appendBytes(w.packet(0, 0), 45, si))
}

// Process is one process of a ProcessTree.
type Process struct {
	PID, PPID int32
	Cmdline   string
}

// Thread is one thread of a ProcessTree.
type Thread struct {
	TID, TGID int32
	Name      string
}

// ProcessTree writes the processes and threads alive at ts.
func (w *Writer) ProcessTree(ts int64, procs []Process, threads []Thread) {
	var pt []byte
	for _, p := range procs {
		var m []byte
		m = appendVarint(m, 1, uint64(p.PID))
		m = appendVarint(m, 2, uint64(p.PPID))
		m = appendString(m, 3, p.Cmdline)
		pt = appendBytes(pt, 1, m)
	}
	for _, t := range threads {
		var m []byte
		m = appendVarint(m, 1, uint64(t.TID))
		m = appendString(m, 2, t.Name)
		m = appendVarint(m, 3, uint64(t.TGID))
		pt = appendBytes(pt, 2, m)
	}
	w.flush(appendBytes(w.packet(ts, trace.Boottime), 2, pt))
}

// SurfaceFrame is the start of an app's frame (expected or actual) in
// FrameTimeline. Present, OnTimeFinish, GPUComposition, Jank and Prediction
// belong to actual frames only.
type SurfaceFrame struct {
	Cookie         int64
	Token          int64
	DisplayToken   int64
	PID            int32
	Layer          string
	Present        trace.PresentType
	OnTimeFinish   bool
	GPUComposition bool
	Jank           trace.JankType
	Prediction     trace.PredictionType
}

func (f SurfaceFrame) encode(actual bool) []byte {
	var m []byte
	m = appendVarint(m, 1, uint64(f.Cookie))
	m = appendVarint(m, 2, uint64(f.Token))
	m = appendVarint(m, 3, uint64(f.DisplayToken))
	m = appendVarint(m, 4, uint64(f.PID))
	m = appendString(m, 5, f.Layer)
	if actual {
		m = appendVarint(m, 6, uint64(f.Present))
		m = appendBool(m, 7, f.OnTimeFinish)
		m = appendBool(m, 8, f.GPUComposition)
		m = appendVarint(m, 9, uint64(f.Jank))
		m = appendVarint(m, 10, uint64(f.Prediction))
	}
	return m
}

func (w *Writer) frameTimeline(ts int64, kind protowire.Number, m []byte) {
	// SurfaceFlinger stamps FrameTimeline packets with an explicit
	// boottime clock id.
	b := w.packet(ts, trace.Boottime)
	b = appendVarint(b, 58, uint64(trace.Boottime))
	w.flush(appendBytes(b, 76, appendBytes(nil, kind, m)))
}

// ExpectedSurfaceFrame writes the start of an expected app frame.
func (w *Writer) ExpectedSurfaceFrame(ts int64, f SurfaceFrame) {
	w.frameTimeline(ts, 3, f.encode(false))
}

// ActualSurfaceFrame writes the start of an actual app frame.
func (w *Writer) ActualSurfaceFrame(ts int64, f SurfaceFrame) { w.frameTimeline(ts, 4, f.encode(true)) }

// DisplayFrame is the start of SurfaceFlinger's frame (expected or actual).
type DisplayFrame struct {
	Cookie     int64
	Token      int64
	PID        int32
	Present    trace.PresentType
	Jank       trace.JankType
	Prediction trace.PredictionType
}

// ExpectedDisplayFrame writes the start of an expected display frame.
func (w *Writer) ExpectedDisplayFrame(ts int64, f DisplayFrame) {
	var m []byte
	m = appendVarint(m, 1, uint64(f.Cookie))
	m = appendVarint(m, 2, uint64(f.Token))
	m = appendVarint(m, 3, uint64(f.PID))
	w.frameTimeline(ts, 1, m)
}

// ActualDisplayFrame writes the start of an actual display frame.
func (w *Writer) ActualDisplayFrame(ts int64, f DisplayFrame) {
	var m []byte
	m = appendVarint(m, 1, uint64(f.Cookie))
	m = appendVarint(m, 2, uint64(f.Token))
	m = appendVarint(m, 3, uint64(f.PID))
	m = appendVarint(m, 4, uint64(f.Present))
	m = appendVarint(m, 7, uint64(f.Jank))
	m = appendVarint(m, 8, uint64(f.Prediction))
	w.frameTimeline(ts, 2, m)
}

// FrameEnd ends the frame whose start had cookie.
func (w *Writer) FrameEnd(ts, cookie int64) {
	w.frameTimeline(ts, 5, appendVarint(nil, 1, uint64(cookie)))
}

// Event is one ftrace event; exactly one of its payloads is set.
type Event struct {
	Ts  int64 // boottime ns
	PID int32 // the thread that was running (or wrote the marker)
	// Print is a trace_marker line, as atrace writes them: "B|<tgid>|<name>"
	// or "E|<tgid>".
	Print   string
	Switch  *SchedSwitch
	Waking  *SchedWaking
	Binder  *BinderTransaction
	Unknown []byte // an event payload of a kind package trace does not read, written as field 36
}

// SchedSwitch is a sched_switch event.
type SchedSwitch struct {
	PrevComm  string
	PrevPID   int32
	PrevPrio  int32
	PrevState int64
	NextComm  string
	NextPID   int32
	NextPrio  int32
}

// SchedWaking is a sched_waking event.
type SchedWaking struct {
	Comm      string
	PID       int32
	Prio      int32
	TargetCPU int32
}

// BinderTransaction is a binder_transaction event.
type BinderTransaction struct {
	DebugID  int32
	ToProc   int32
	ToThread int32
	Reply    bool
	Flags    uint32
}

// Bundle is one FtraceEventBundle: events of one CPU, in time order.
type Bundle struct {
	CPU        uint32
	LostEvents bool
	Events     []Event
	Compact    *CompactSched
	// FtraceClock, when not 0, says the events' times are on another clock
	// than boottime (FtraceClock enum: 2 global, 3 local, 4 mono_raw), and
	// FtraceTs and BootTs are that clock and boottime read at one instant.
	FtraceClock      int
	FtraceTs, BootTs int64
}

// CompactSched is the compact encoding of a CPU's sched_switch and
// sched_waking events (FtraceEventBundle.CompactSched): no prev_* fields, a
// switch's leaving task is the previous switch's next one.
type CompactSched struct {
	Switches []CompactSwitch
	Wakings  []CompactWaking
}

// CompactSwitch is one switch of a CompactSched.
type CompactSwitch struct {
	Ts        int64
	PrevState int64
	NextPID   int32
	NextPrio  int32
	NextComm  string
}

// CompactWaking is one waking of a CompactSched.
type CompactWaking struct {
	Ts        int64
	PID       int32
	TargetCPU int32
	Prio      int32
	Comm      string
}

// Ftrace writes one bundle.
func (w *Writer) Ftrace(bd Bundle) {
	var m []byte
	m = appendVarint(m, 1, uint64(bd.CPU))
	for _, e := range bd.Events {
		m = appendBytes(m, 2, e.encode())
	}
	m = appendBool(m, 3, bd.LostEvents)
	if bd.Compact != nil {
		m = appendBytes(m, 4, bd.Compact.encode())
	}
	if bd.FtraceClock != 0 {
		m = appendVarint(m, 5, uint64(bd.FtraceClock))
		m = appendVarint(m, 6, uint64(bd.FtraceTs))
		m = appendVarint(m, 7, uint64(bd.BootTs))
	}
	w.flush(appendBytes(w.packet(0, 0), 1, m))
}

func (e Event) encode() []byte {
	var m []byte
	m = appendVarint(m, 1, uint64(e.Ts))
	m = appendVarint(m, 2, uint64(e.PID))
	switch {
	case e.Switch != nil:
		s := e.Switch
		var p []byte
		p = appendString(p, 1, s.PrevComm)
		p = appendVarint(p, 2, uint64(s.PrevPID))
		p = appendVarint(p, 3, uint64(s.PrevPrio))
		p = appendVarint(p, 4, uint64(s.PrevState))
		p = appendString(p, 5, s.NextComm)
		p = appendVarint(p, 6, uint64(s.NextPID))
		p = appendVarint(p, 7, uint64(s.NextPrio))
		m = appendBytes(m, 4, p)
	case e.Waking != nil:
		s := e.Waking
		var p []byte
		p = appendString(p, 1, s.Comm)
		p = appendVarint(p, 2, uint64(s.PID))
		p = appendVarint(p, 3, uint64(s.Prio))
		p = appendVarint(p, 4, 1)
		p = appendVarint(p, 5, uint64(s.TargetCPU))
		m = appendBytes(m, 20, p)
	case e.Binder != nil:
		s := e.Binder
		var p []byte
		p = appendVarint(p, 1, uint64(s.DebugID))
		p = appendVarint(p, 3, uint64(s.ToProc))
		p = appendVarint(p, 4, uint64(s.ToThread))
		if s.Reply {
			p = appendVarint(p, 5, 1)
		} else {
			p = appendVarint(p, 5, 0)
		}
		p = appendVarint(p, 7, uint64(s.Flags))
		m = appendBytes(m, 50, p)
	case e.Unknown != nil:
		m = appendBytes(m, 36, e.Unknown)
	default:
		var p []byte
		p = appendVarint(p, 1, 0)
		p = appendString(p, 2, e.Print+"\n")
		m = appendBytes(m, 3, p)
	}
	return m
}

func (c *CompactSched) encode() []byte {
	intern := map[string]uint64{}
	var table []string
	idx := func(s string) uint64 {
		i, ok := intern[s]
		if !ok {
			i = uint64(len(table))
			intern[s] = i
			table = append(table, s)
		}
		return i
	}
	var ts, st, pid, prio, comm []uint64
	last := int64(0)
	for _, s := range c.Switches {
		ts = append(ts, uint64(s.Ts-last))
		last = s.Ts
		st = append(st, uint64(s.PrevState))
		pid = append(pid, uint64(s.NextPID))
		prio = append(prio, uint64(s.NextPrio))
		comm = append(comm, idx(s.NextComm))
	}
	var wts, wpid, wcpu, wprio, wcomm, wflags []uint64
	last = 0
	for _, k := range c.Wakings {
		wts = append(wts, uint64(k.Ts-last))
		last = k.Ts
		wpid = append(wpid, uint64(k.PID))
		wcpu = append(wcpu, uint64(k.TargetCPU))
		wprio = append(wprio, uint64(k.Prio))
		wcomm = append(wcomm, idx(k.Comm))
		wflags = append(wflags, 0)
	}
	var m []byte
	m = appendPacked(m, 1, ts)
	m = appendPacked(m, 2, st)
	m = appendPacked(m, 3, pid)
	m = appendPacked(m, 4, prio)
	for _, s := range table {
		m = appendString(m, 5, s)
	}
	m = appendPacked(m, 6, comm)
	m = appendPacked(m, 7, wts)
	m = appendPacked(m, 8, wpid)
	m = appendPacked(m, 9, wcpu)
	m = appendPacked(m, 10, wprio)
	m = appendPacked(m, 11, wcomm)
	m = appendPacked(m, 12, wflags)
	return m
}

// ThreadTrack writes a TrackDescriptor of a thread's track, for TrackEvent
// slices on it.
func (w *Writer) ThreadTrack(uuid uint64, pid, tid int32, name string) {
	var td []byte
	td = appendVarint(td, 1, uuid)
	var th []byte
	th = appendVarint(th, 1, uint64(pid))
	th = appendVarint(th, 2, uint64(tid))
	th = appendString(th, 5, name)
	td = appendBytes(td, 4, th)
	w.flush(appendBytes(w.packet(0, 0), 60, td))
}

// InternNames writes a packet that clears the sequence's incremental state
// and interns event names by iid, for SliceBegin with a NameIID.
func (w *Writer) InternNames(names map[uint64]string) {
	b := w.packet(0, 0)
	b = appendVarint(b, 13, 1) // SEQ_INCREMENTAL_STATE_CLEARED
	w.flush(appendBytes(b, 12, internedNames(names)))
}

// internedNames is an InternedData of event names, by iid.
func internedNames(names map[uint64]string) []byte {
	iids := make([]uint64, 0, len(names))
	for k := range names {
		iids = append(iids, k)
	}
	sort.Slice(iids, func(i, j int) bool { return iids[i] < iids[j] })
	var id []byte
	for _, k := range iids {
		var en []byte
		en = appendVarint(en, 1, k)
		en = appendString(en, 2, names[k])
		id = appendBytes(id, 2, en)
	}
	return id
}

// SliceBegin writes a TrackEvent slice begin on a track: named by name, or
// by an interned iid when name is "".
func (w *Writer) SliceBegin(ts int64, track uint64, name string, nameIID uint64) {
	var te []byte
	te = appendVarint(te, 9, 1)
	te = appendVarint(te, 11, track)
	if name != "" {
		te = appendString(te, 23, name)
	} else {
		te = appendVarint(te, 10, nameIID)
	}
	b := w.packet(ts, trace.Boottime)
	b = appendVarint(b, 13, 2) // SEQ_NEEDS_INCREMENTAL_STATE
	w.flush(appendBytes(b, 11, te))
}

// SliceEnd ends the track's innermost open slice.
func (w *Writer) SliceEnd(ts int64, track uint64) {
	var te []byte
	te = appendVarint(te, 9, 2)
	te = appendVarint(te, 11, track)
	b := w.packet(ts, trace.Boottime)
	b = appendVarint(b, 13, 2)
	w.flush(appendBytes(b, 11, te))
}
