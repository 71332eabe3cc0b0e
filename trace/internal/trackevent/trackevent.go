// Package trackevent reads the slices of TrackEvent packets (the Perfetto
// SDK's, which androidx.tracing:tracing-perfetto writes) and pairs each
// track's begins and ends, as Perfetto's trace processor puts them in its
// slice table. The wire format is google/perfetto's
// protos/perfetto/trace/trace_packet.proto (timestamp 8,
// trusted_packet_sequence_id 10, track_event 11, interned_data 12,
// sequence_flags 13, incremental_state_cleared 41,
// previous_packet_dropped 42, trace_packet_defaults 59, track_descriptor
// 60), track_event/track_event.proto (type 9: SLICE_BEGIN 1, SLICE_END 2,
// INSTANT 3, COUNTER 4; name_iid 10, track_uuid 11, name 23),
// track_event/track_descriptor.proto (uuid 1, name 2, process 3, thread 4,
// parent_uuid 5, counter 8, static_name 10, atrace_name 13),
// track_event/process_descriptor.proto (pid 1),
// track_event/thread_descriptor.proto (pid 1, tid 2),
// interned_data/interned_data.proto (event_names 2: EventName iid 1,
// name 2) and trace_packet_defaults.proto (track_event_defaults 11:
// TrackEventDefaults track_uuid 11).
//
// What trace processor does and this package does alike:
//   - names interned by iid belong to one packet sequence (one writer): two
//     sequences may give one iid two names; a packet that clears the
//     sequence's incremental state (sequence_flags
//     SEQ_INCREMENTAL_STATE_CLEARED, or the older
//     incremental_state_cleared) forgets the sequence's names and
//     defaults, and after a packet was lost (previous_packet_dropped) a
//     packet that needs that state (SEQ_NEEDS_INCREMENTAL_STATE) is
//     dropped until the state is cleared again;
//   - an event without track_uuid is on the sequence's default track
//     (TrackEventDefaults), and one with neither is dropped;
//   - a track with a thread descriptor is that thread's; any other track
//     belongs to the process its descriptor, or its parent's, names, and
//     to no thread: a process or named track is never a main thread;
//   - an end ends the innermost slice open on its track; an instant is a
//     slice of length 0.
package trackevent

import (
	"cmp"
	"slices"
	"strconv"
	"unique"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/trace/internal/pb"
)

// Event types (TrackEvent.Type) and sequence flags.
const (
	typeBegin   = 1
	typeEnd     = 2
	typeInstant = 3

	seqCleared = 1
	seqNeeds   = 2
)

// Slice is one slice a track held, times on boottime in ns.
type Slice struct {
	Name string
	// PID is the process of the track (0: none known); TID the thread of
	// a thread's track, 0 on a process's or a named track.
	PID, TID   int32
	Start, End int64
	// Track is the track's name, "" for a thread's track without one.
	Track string
}

type track struct {
	parent   uint64
	pid, tid int32
	thread   bool
	name     string
}

type sequence struct {
	names  map[uint64]string
	defTr  uint64
	broken bool
	part   int // the trace of the file its last packet came in
}

type event struct {
	track uint64
	ts    int64
	typ   uint8
	name  unique.Handle[string] // a name recurs: kept once
}

// Decoder gathers the TrackEvent slices of a trace's packets. The zero
// value is ready.
type Decoder struct {
	seqs   map[uint32]*sequence
	tracks map[uint64]*track
	events []event
	// A file can hold several traces one after another (a ring buffer
	// read twice), as package trace reads it: part counts the traces
	// begun after the first, once the packets a trace has once seen in
	// this one, readTo each track's last event in the earlier ones.
	part   int
	once   map[protowire.Number]bool
	readTo map[uint64]int64
	// Malformed counts the packets that are no protobuf message where
	// this package reads one; Dropped the events it could not place: on
	// no track, or needing a sequence's state that was lost; Again those
	// an earlier trace of the file held.
	Malformed, Dropped, Again int
}

// Len is how many slice events the Decoder holds.
func (d *Decoder) Len() int {
	if d == nil {
		return 0
	}
	return len(d.events)
}

// Packet reads one TracePacket (its payload, as trace.Options.Packet gives
// it): ts is its time on boottime, ok false when it has none there.
func (d *Decoder) Packet(pkt []byte, ts int64, ok bool) {
	if d.seqs == nil {
		d.seqs, d.tracks = map[uint32]*sequence{}, map[uint64]*track{}
		d.once, d.readTo = map[protowire.Number]bool{}, map[uint64]int64{}
	}
	var seqID uint32
	var flags uint64
	var cleared, dropped, first bool
	var once protowire.Number
	var interned, defaults, td, te []byte
	it := pb.Fields(pkt)
	for it.Next() {
		f := it.Field()
		switch {
		case f.Num == 10 && f.Type == protowire.VarintType:
			seqID = uint32(f.Int)
		case f.Num == 13 && f.Type == protowire.VarintType:
			flags = f.Int
		case f.Num == 41 && f.Type == protowire.VarintType:
			cleared = f.Int != 0
		case f.Num == 42 && f.Type == protowire.VarintType:
			dropped = f.Int != 0
		case f.Num == 87 && f.Type == protowire.VarintType:
			first = f.Int != 0
		case f.Num == 33 || f.Num == 45 || f.Num == 89: // trace_config, system_info, trace_uuid
			once = f.Num
		case f.Type != protowire.BytesType:
		case f.Num == 12:
			interned = f.Bytes
		case f.Num == 59:
			defaults = f.Bytes
		case f.Num == 60:
			td = f.Bytes
		case f.Num == 11:
			te = f.Bytes
		}
	}
	if it.Err() != nil {
		d.Malformed++
		return
	}
	seq := d.seqs[seqID]
	if once != 0 && d.once[once] || first && seq != nil && seq.part == d.part {
		d.newTrace()
	}
	if once != 0 {
		d.once[once] = true
	}
	if seq == nil {
		seq = &sequence{names: map[uint64]string{}}
		d.seqs[seqID] = seq
	}
	seq.part = d.part
	if interned == nil && defaults == nil && td == nil && te == nil && !cleared && flags&seqCleared == 0 {
		return // no packet of TrackEvent's: the common case
	}
	if dropped {
		seq.broken = true
	}
	if cleared || flags&seqCleared != 0 {
		*seq = sequence{names: map[uint64]string{}}
	}
	if seq.broken && flags&seqNeeds != 0 {
		if te != nil {
			d.Dropped++
		}
		return
	}
	if d.read(seq, interned, defaults, td) != nil {
		d.Malformed++
		return
	}
	if te != nil && ok {
		if d.trackEvent(seq, te, ts) != nil {
			d.Malformed++
		}
	}
}

// newTrace starts the next trace of the file: each track's events up to
// its last one read are the earlier trace's, and every sequence's state is
// lost until it is cleared (package trace's builder.newTrace alike).
func (d *Decoder) newTrace() {
	d.part++
	clear(d.once)
	for _, e := range d.events {
		d.readTo[e.track] = max(d.readTo[e.track], e.ts)
	}
	for _, seq := range d.seqs {
		seq.broken = true
	}
}

// read takes a packet's interned names, defaults and track descriptor.
func (d *Decoder) read(seq *sequence, interned, defaults, td []byte) error {
	err := each(interned, func(f pb.Field) error {
		if f.Num != 2 {
			return nil
		}
		var iid uint64
		var name string
		err := each(f.Bytes, func(g pb.Field) error {
			switch g.Num {
			case 1:
				iid = g.Int
			case 2:
				name = cut(g.Bytes)
			}
			return nil
		})
		seq.names[iid] = name
		return err
	})
	if err != nil {
		return err
	}
	err = each(defaults, func(f pb.Field) error {
		if f.Num != 11 {
			return nil
		}
		return each(f.Bytes, func(g pb.Field) error {
			if g.Num == 11 {
				seq.defTr = g.Int
			}
			return nil
		})
	})
	if err != nil || td == nil {
		return err
	}
	return d.descriptor(td)
}

// descriptor reads a TrackDescriptor.
func (d *Decoder) descriptor(td []byte) error {
	var uuid uint64
	t := &track{}
	var counter bool
	err := each(td, func(f pb.Field) error {
		switch f.Num {
		case 1:
			uuid = f.Int
		case 5:
			t.parent = f.Int
		case 2, 10, 13:
			t.name = cut(f.Bytes)
		case 8:
			counter = true
		case 3:
			return each(f.Bytes, func(g pb.Field) error {
				if g.Num == 1 {
					t.pid = g.Int32()
				}
				return nil
			})
		case 4:
			t.thread = true
			return each(f.Bytes, func(g pb.Field) error {
				switch g.Num {
				case 1:
					t.pid = g.Int32()
				case 2:
					t.tid = g.Int32()
				}
				return nil
			})
		}
		return nil
	})
	if err == nil && uuid != 0 && !counter {
		d.tracks[uuid] = t
	}
	return err
}

// trackEvent reads a TrackEvent at ts.
func (d *Decoder) trackEvent(seq *sequence, te []byte, ts int64) error {
	var typ, iid, uuid uint64
	var name string
	var hasName, hasIID, hasTrack bool
	err := each(te, func(f pb.Field) error {
		switch f.Num {
		case 9:
			typ = f.Int
		case 10:
			iid, hasIID = f.Int, true
		case 11:
			uuid, hasTrack = f.Int, true
		case 23:
			name, hasName = cut(f.Bytes), true
		}
		return nil
	})
	if err != nil || typ < typeBegin || typ > typeInstant {
		return err
	}
	if !hasTrack {
		uuid = seq.defTr
	}
	if uuid == 0 {
		d.Dropped++
		return nil
	}
	if r, ok := d.readTo[uuid]; ok && ts <= r {
		// A track's events come from one writer in time order: one up to
		// where an earlier trace of the file got is one it held.
		d.Again++
		return nil
	}
	if !hasName && typ != typeEnd {
		n, ok := seq.names[iid]
		if !ok && hasIID {
			n = "[unknown name iid " + strconv.FormatUint(iid, 10) + "]"
		}
		name = n
	}
	d.events = append(d.events, event{track: uuid, ts: ts, typ: uint8(typ), name: unique.Make(name)})
	return nil
}

// owner is the process and thread of the track uuid: its own, or for a
// track that names no process, its nearest parent's (never its thread).
func (d *Decoder) owner(uuid uint64) (pid, tid int32, name string) {
	t := d.tracks[uuid]
	if t == nil {
		return 0, 0, ""
	}
	name = t.name
	if t.thread {
		return t.pid, t.tid, name
	}
	for i := 0; t != nil && i < 64; i++ {
		if t.pid != 0 {
			return t.pid, 0, name
		}
		t = d.tracks[t.parent]
	}
	return 0, 0, name
}

// Slices pairs each track's begins and ends in time order (events of one
// time keep the order read) and hands fn each slice as it ends (ended
// true) or, open at the end of the trace, with End 0 (ended false). It
// returns how many ends came with no slice open on their track.
func (d *Decoder) Slices(fn func(s Slice, ended bool)) (endsWithoutBegin int) {
	if d == nil {
		return 0
	}
	slices.SortStableFunc(d.events, func(x, y event) int { return cmp.Or(cmp.Compare(x.track, y.track), cmp.Compare(x.ts, y.ts)) })
	var open []event
	var pid, tid int32
	var tname string
	flush := func() {
		for _, b := range open {
			fn(Slice{Name: b.name.Value(), PID: pid, TID: tid, Start: b.ts, Track: tname}, false)
		}
		open = open[:0]
	}
	for i, e := range d.events {
		if i == 0 || e.track != d.events[i-1].track {
			flush()
			pid, tid, tname = d.owner(e.track)
		}
		switch e.typ {
		case typeBegin:
			open = append(open, e)
		case typeInstant:
			fn(Slice{Name: e.name.Value(), PID: pid, TID: tid, Start: e.ts, End: e.ts, Track: tname}, true)
		default:
			if len(open) == 0 {
				endsWithoutBegin++
				continue
			}
			b := open[len(open)-1]
			open = open[:len(open)-1]
			fn(Slice{Name: b.name.Value(), PID: pid, TID: tid, Start: b.ts, End: e.ts, Track: tname}, true)
		}
	}
	flush()
	return endsWithoutBegin
}

// each walks the fields of message b (nil: none).
func each(b []byte, fn func(f pb.Field) error) error {
	it := pb.Fields(b)
	for it.Next() {
		if err := fn(it.Field()); err != nil {
			return err
		}
	}
	return it.Err()
}

// cut is a name as kept: at most maxName bytes.
func cut(b []byte) string {
	if len(b) > maxName {
		return string(b[:maxName]) + "…"
	}
	return string(b)
}

const maxName = 1024
