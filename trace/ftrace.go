package trace

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/trace/internal/markers"
	"github.com/perfgate/perfgate/trace/internal/pb"
	"github.com/perfgate/perfgate/trace/internal/threadlog"
)

// ftraceBundle decodes one FtraceEventBundle: the events of one CPU's ring
// buffer, in that CPU's order, plain or in the compact sched encoding.
func (b *builder) ftraceBundle(pkt, data []byte) error {
	var cpu uint32
	events := b.evScratch[:0] // reused: a bundle can hold a handful of events or thousands
	defer func() { b.evScratch = events[:0] }()
	var compact []byte
	var lost bool
	var ftraceClock uint64
	var ftraceTs, bootTs int64
	var hasFtraceTs, hasBootTs bool
	w := pb.NewWalker(pkt, data, pb.FtraceEventBundle)
	for w.Next() {
		f := w.Field()
		switch f.Num {
		case 1:
			cpu = uint32(f.Int)
		case 2:
			events = append(events, f.Bytes)
		case 3:
			lost = f.Int != 0
		case 4:
			compact = f.Bytes
		case 5:
			ftraceClock = f.Int
		case 6:
			ftraceTs, hasFtraceTs = f.Int64(), true
		case 7:
			bootTs, hasBootTs = f.Int64(), true
		}
	}
	if w.Err() != nil {
		return w.Err()
	}
	// Timestamps are on the ftrace clock: boottime unless the bundle says
	// otherwise, then moved onto boottime by the pair of readings it carries.
	var offset int64
	if ftraceClock != 0 {
		if !hasFtraceTs || !hasBootTs {
			b.rejected["ftrace_unknown_clock"] += len(events)
			return nil
		}
		offset = bootTs - ftraceTs
	}
	cs := b.cpus[cpu]
	if cs == nil {
		cs = &cpuState{}
		b.cpus[cpu] = cs
	}
	if lost {
		// The kernel overwrote events since the last read: the task that
		// ran last is no longer known.
		cs.known = false
		b.dataLoss = true
	}
	if compact != nil {
		if err := b.compactSched(pkt, compact, cs, offset); err != nil {
			return pb.Within(err, "compact_sched(4)", 0)
		}
	}
	for _, ev := range events {
		if err := b.ftraceEvent(pkt, ev, cs, offset); err != nil {
			return pb.Within(err, "event(2)", 0)
		}
	}
	return nil
}

// inOrder checks an event's time against the CPU's last one: a CPU's ring
// buffer is in time order, so a time before the last is not a time.
//
// The compact and the plain events of a bundle are two such sequences
// (last), interleaved in time.
func (b *builder) inOrder(cs *cpuState, last *int64, ts int64, what string) bool {
	if ts <= 0 {
		b.reject(what + "_no_timestamp")
		return false
	}
	read := cs.readTs
	if last == &cs.lastCompact {
		read = cs.readCompact
	}
	if b.part > 0 && ts <= read {
		// An event an earlier trace of the file held (a trace reads each
		// CPU's buffer in time order, so a later one holds the same
		// events up to where the earlier one stopped, or none of them).
		b.readAgain("ftrace_events")
		return false
	}
	if ts < *last {
		b.reject(what + "_time_backwards")
		cs.known = false
		return false
	}
	*last = ts
	b.see(stamp{Boottime, ts})
	return true
}

// compactSched holds a CompactSched's switch and waking arrays, each
// timestamp a delta on the one before.
type compactSched struct {
	swTs, swState, swNext, wkTs, wkPid []uint64
}

func (b *builder) compactSched(pkt, data []byte, cs *cpuState, offset int64) error {
	var c compactSched
	w := pb.NewWalker(pkt, data, pb.CompactSched)
	for w.Next() {
		var dst *[]uint64
		switch w.Field().Num {
		case 1:
			dst = &c.swTs
		case 2:
			dst = &c.swState
		case 3:
			dst = &c.swNext
		case 7:
			dst = &c.wkTs
		case 8:
			dst = &c.wkPid
		default:
			continue
		}
		if err := pb.AppendPacked(pkt, w.Field(), dst); err != nil {
			return w.Wrap(err)
		}
	}
	if w.Err() != nil {
		return w.Err()
	}
	if len(c.swTs) != len(c.swState) || len(c.swTs) != len(c.swNext) {
		b.rejected["compact_sched_mismatched_arrays"] += max(len(c.swTs), len(c.swState), len(c.swNext))
		cs.known = false
		c.swTs = nil
	}
	if len(c.wkTs) != len(c.wkPid) {
		b.rejected["compact_sched_mismatched_arrays"] += max(len(c.wkTs), len(c.wkPid))
		c.wkTs = nil
	}
	if len(c.swTs) > 0 || len(c.wkTs) > 0 {
		b.haveSched = true
	}
	b.replayCompact(&c, cs, offset)
	return nil
}

// replayCompact replays the switches and wakings, delta-encoded separately,
// merged in time as the CPU recorded them.
func (b *builder) replayCompact(c *compactSched, cs *cpuState, offset int64) {
	var st, wt int64
	i, j := 0, 0
	var nextSw, nextWk int64
	if len(c.swTs) > 0 {
		nextSw = int64(c.swTs[0])
	}
	if len(c.wkTs) > 0 {
		nextWk = int64(c.wkTs[0])
	}
	for i < len(c.swTs) || j < len(c.wkTs) {
		if i < len(c.swTs) && (j >= len(c.wkTs) || nextSw <= nextWk) {
			st = nextSw
			ts := st + offset
			if b.inOrder(cs, &cs.lastCompact, ts, "sched") {
				b.switchTo(cs, ts, int64(c.swState[i]), int32(int64(c.swNext[i])), 0, false)
			}
			i++
			if i < len(c.swTs) {
				nextSw = st + int64(c.swTs[i])
			}
			continue
		}
		wt = nextWk
		b.compactWaking(cs, wt+offset, int32(int64(c.wkPid[j])))
		j++
		if j < len(c.wkTs) {
			nextWk = wt + int64(c.wkTs[j])
		}
	}
}

// compactWaking records a waking of the compact encoding, whose times are
// in order among the wakings only.
func (b *builder) compactWaking(cs *cpuState, ts int64, pid int32) {
	switch {
	case b.part > 0 && ts > 0 && ts <= cs.readWake:
		b.readAgain("ftrace_events") // as in inOrder
	case ts > 0:
		cs.lastWake = max(cs.lastWake, ts)
		b.see(stamp{Boottime, ts})
		if t := b.thread(pid); t != nil {
			t.Add(threadlog.Event{Ts: ts, Kind: threadlog.Wake})
		}
	default:
		b.reject("sched_no_timestamp")
	}
}

// switchTo records a context switch on a CPU: the task that ran leaves it
// in prevState, next starts running. Without an explicit prev (compact
// encoding) the previous switch's next task is the one leaving.
func (b *builder) switchTo(cs *cpuState, ts, prevState int64, next, prev int32, explicit bool) {
	if !explicit {
		prev = cs.tid
		explicit = cs.known
	}
	if explicit {
		if t := b.thread(prev); t != nil {
			t.Add(threadlog.Event{Ts: ts, Kind: threadlog.SwitchOut, St: uint8(taskState(prevState))})
		}
	}
	if t := b.thread(next); t != nil {
		t.Add(threadlog.Event{Ts: ts, Kind: threadlog.SwitchIn})
	}
	cs.tid, cs.known = next, true
}

// taskState maps sched_switch's prev_state onto a ThreadState. The low bits
// (R=0, S=1, D=2, T=4, t=8, X=16, Z=32, parked or dead=64) mean the same on
// every kernel; above them, 4.14+ report an idle task as 0x80 and preemption
// as 0x100, older kernels preemption as a high bit: a task with none of the
// low bits set was preempted, and is runnable.
func taskState(raw int64) ThreadState {
	switch {
	case raw < 0:
		return StateOther
	case raw&0x2 != 0:
		return StateUninterruptible
	case raw&0x1 != 0:
		return StateSleeping
	case raw&0x7c != 0:
		return StateOther
	case raw&0x80 != 0:
		return StateSleeping // TASK_IDLE on 4.14+, a kernel thread's wait
	}
	return StateRunnable
}

// ftraceEv is one plain ftrace event: its payload (inside the packet pkt),
// its CPU, its time on boottime and the task that wrote it.
type ftraceEv struct {
	pkt, payload []byte
	cs           *cpuState
	ts           int64
	pid          int32
}

func (b *builder) ftraceEvent(pkt, data []byte, cs *cpuState, offset int64) error {
	ev := ftraceEv{pkt: pkt, cs: cs}
	var kindNum protowire.Number
	w := pb.NewWalker(pkt, data, pb.FtraceEvent)
	for w.Next() {
		switch f := w.Field(); f.Num {
		case 1:
			ev.ts = f.Int64()
		case 2:
			ev.pid = f.Int32()
		default:
			kindNum, ev.payload = f.Num, f.Bytes
		}
	}
	if w.Err() != nil || kindNum == 0 {
		return w.Err()
	}
	if ev.ts != 0 {
		ev.ts += offset
	}
	var err error
	switch kindNum {
	case 4:
		err = b.schedSwitch(&ev)
	case 17, 20: // sched_wakeup, sched_waking
		err = b.schedWaking(&ev)
	case 3:
		err = b.printEvent(&ev)
	case 50:
		err = b.binderTransaction(&ev)
	}
	if err != nil {
		return pb.Within(err, pb.FtraceEvent.FieldName(kindNum), 0)
	}
	return nil
}

func (b *builder) schedSwitch(ev *ftraceEv) error {
	var prevPid, nextPid int32
	var prevState int64
	pw := pb.NewWalker(ev.pkt, ev.payload, pb.SchedSwitch)
	for pw.Next() {
		switch f := pw.Field(); f.Num {
		case 2:
			prevPid = f.Int32()
		case 4:
			prevState = f.Int64()
		case 6:
			nextPid = f.Int32()
		}
	}
	if pw.Err() != nil {
		return pw.Err()
	}
	b.haveSched = true
	if b.inOrder(ev.cs, &ev.cs.lastTs, ev.ts, "sched") {
		b.switchTo(ev.cs, ev.ts, prevState, nextPid, prevPid, true)
	}
	return nil
}

func (b *builder) schedWaking(ev *ftraceEv) error {
	var wpid int32
	pw := pb.NewWalker(ev.pkt, ev.payload, pb.SchedWaking)
	for pw.Next() {
		if f := pw.Field(); f.Num == 2 {
			wpid = f.Int32()
		}
	}
	if pw.Err() != nil {
		return pw.Err()
	}
	b.haveSched = true
	if b.inOrder(ev.cs, &ev.cs.lastTs, ev.ts, "sched") {
		if t := b.thread(wpid); t != nil {
			t.Add(threadlog.Event{Ts: ev.ts, Kind: threadlog.Wake})
		}
	}
	return nil
}

// printEvent reads an atrace marker.
func (b *builder) printEvent(ev *ftraceEv) error {
	var buf []byte
	pw := pb.NewWalker(ev.pkt, ev.payload, pb.Print)
	for pw.Next() {
		buf = pw.Field().Bytes
	}
	if pw.Err() != nil {
		return pw.Err()
	}
	if b.inOrder(ev.cs, &ev.cs.lastTs, ev.ts, "atrace") {
		b.atrace(ev.ts, ev.pid, buf)
	}
	return nil
}

func (b *builder) binderTransaction(ev *ftraceEv) error {
	var reply, flags uint64
	var toThread int32
	pw := pb.NewWalker(ev.pkt, ev.payload, pb.BinderTransaction)
	for pw.Next() {
		switch f := pw.Field(); f.Num {
		case 4:
			toThread = f.Int32()
		case 5:
			reply = f.Int
		case 7:
			flags = f.Int
		}
	}
	if pw.Err() != nil {
		return pw.Err()
	}
	if !b.inOrder(ev.cs, &ev.cs.lastTs, ev.ts, "binder") {
		return nil
	}
	const oneWay = 0x01 // TF_ONE_WAY: the caller does not wait
	switch {
	case reply == 0 && flags&oneWay == 0:
		if t := b.thread(ev.pid); t != nil {
			t.Add(threadlog.Event{Ts: ev.ts, Kind: threadlog.BinderCall})
		}
	case reply != 0 && toThread > 0:
		if t := b.thread(toThread); t != nil {
			t.Add(threadlog.Event{Ts: ev.ts, Kind: threadlog.BinderReply})
		}
	}
	return nil
}

// othersMarker: with a package to look at, the marker's process (its
// tgid, or the one its thread named last) is already named another's.
func (b *builder) othersMarker(tid, tgid int32) bool {
	if b.opts.Package == "" {
		return false
	}
	if tgid == 0 {
		tgid = b.markerPID[tid]
	} else {
		b.markerPID[tid] = tgid
	}
	n, ok := b.procNames[tgid]
	return ok && n != "" && !provisionalName(n) && !isPackageProcess(n, b.opts.Package)
}

// atrace reads a trace_marker line (`B|tgid|name`, `E|tgid`, …) written by
// thread tid as package markers does; only thread-scoped slices are kept.
func (b *builder) atrace(ts int64, tid int32, buf []byte) {
	buf = bytes.TrimRight(buf, "\n\x00")
	if len(buf) == 0 {
		return
	}
	m, ok := markers.Parse(buf)
	if b.opts.Marker != nil && !(ok && b.othersMarker(tid, m.TGID)) {
		b.opts.Marker(ts, tid, buf)
	}
	if !ok || m.Kind != markers.Begin && m.Kind != markers.End {
		if !ok && bytes.HasPrefix(buf, []byte("B|")) { // a tgid that is no number
			b.haveAtrace = true
			b.reject("atrace_malformed")
		}
		return
	}
	b.haveAtrace = true
	if m.TGID != 0 && m.TGID != tid {
		b.notMainThread(tid)
		return
	}
	t := b.thread(tid)
	if t == nil {
		return
	}
	if m.Kind == markers.End {
		t.Add(threadlog.Event{Ts: ts, Kind: threadlog.End})
		return
	}
	t.Add(threadlog.Event{Ts: ts, Kind: threadlog.Begin, Arg: b.nameOf(m.Name)})
}
