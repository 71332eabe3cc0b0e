package trackevent

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// pkt builds a TracePacket of sequence seq; fields go as given.
type pkt []byte

func newPkt(seq uint32) pkt {
	return protowire.AppendVarint(protowire.AppendTag(nil, 10, protowire.VarintType), uint64(seq))
}

func (p pkt) varint(num protowire.Number, v uint64) pkt {
	return protowire.AppendVarint(protowire.AppendTag(p, num, protowire.VarintType), v)
}

func (p pkt) bytes(num protowire.Number, b []byte) pkt {
	return protowire.AppendBytes(protowire.AppendTag(p, num, protowire.BytesType), b)
}

func name(iid uint64, s string) []byte {
	return pkt(nil).bytes(2, pkt(nil).varint(1, iid).bytes(2, []byte(s)))
}

func teEvent(typ, track, iid uint64) []byte {
	e := pkt(nil).varint(9, typ)
	if track != 0 {
		e = e.varint(11, track)
	}
	if iid != 0 {
		e = e.varint(10, iid)
	}
	return e
}

// Names are interned per sequence, forgotten when the sequence's state is
// cleared; after a lost packet, events that need the state are dropped
// until it is cleared again; an event without a track is on the
// sequence's default track; a process's child track is the process's, on
// no thread; a counter track holds no slices.
func TestSequenceState(t *testing.T) {
	var d Decoder
	thread := pkt(nil).varint(1, 1).bytes(4, pkt(nil).varint(1, 10).varint(2, 11))
	proc := pkt(nil).varint(1, 2).bytes(3, pkt(nil).varint(1, 10))
	child := pkt(nil).varint(1, 3).varint(5, 2).bytes(2, []byte("net"))
	counter := pkt(nil).varint(1, 4).varint(5, 2).bytes(8, nil)
	for _, td := range [][]byte{thread, proc, child, counter} {
		d.Packet(newPkt(9).bytes(60, td), 0, false)
	}
	defaults := pkt(nil).bytes(11, pkt(nil).varint(11, 1))
	steps := []struct {
		p  pkt
		ts int64
	}{
		// Sequence 1: iid 1 is "a", default track the thread's.
		{newPkt(1).varint(13, 3).bytes(59, defaults).bytes(12, name(1, "a")).bytes(11, teEvent(1, 0, 1)), 100},
		// Sequence 2: iid 1 is "b", on the named child track.
		{newPkt(2).varint(13, 3).bytes(12, name(1, "b")).bytes(11, teEvent(1, 3, 1)), 110},
		{newPkt(2).varint(13, 2).bytes(11, teEvent(2, 3, 0)), 120},
		{newPkt(1).varint(13, 2).bytes(11, teEvent(2, 0, 0)), 130},
		// Lost packets on sequence 1: dropped till cleared, cleared
		// without iid 1, whose name is then unknown.
		{newPkt(1).varint(42, 1).varint(13, 2).bytes(11, teEvent(1, 1, 1)), 140},
		{newPkt(1).varint(13, 2).bytes(11, teEvent(2, 1, 0)), 150},
		{newPkt(1).varint(13, 3).bytes(59, defaults).bytes(11, teEvent(3, 0, 1)), 160},
		{newPkt(1).varint(13, 2).bytes(11, teEvent(3, 4, 1)), 170}, // a counter track
		{newPkt(1).varint(13, 2).bytes(11, teEvent(3, 2, 1)), 180}, // the process's track
	}
	for _, s := range steps {
		d.Packet(s.p, s.ts, true)
	}
	var got []Slice
	lost := d.Slices(func(s Slice, ended bool) {
		if ended {
			got = append(got, s)
		}
	})
	want := []Slice{
		{Name: "a", PID: 10, TID: 11, Start: 100, End: 130},
		{Name: "[unknown name iid 1]", PID: 10, TID: 11, Start: 160, End: 160},
		{Name: "[unknown name iid 1]", PID: 10, Start: 180, End: 180},
		{Name: "b", PID: 10, Start: 110, End: 120, Track: "net"},
		{Name: "[unknown name iid 1]", Start: 170, End: 170},
	}
	if !slices.Equal(got, want) || lost != 0 || d.Dropped != 2 || d.Malformed != 0 {
		t.Errorf("slices %+v\nwant   %+v\n%d ends without begin, %d dropped, %d malformed", got, want, lost, d.Dropped, d.Malformed)
	}
}

// FuzzPacket: any packets are read without panicking; every slice ended
// is no shorter than 0; each begin and each instant makes one slice,
// ended or open, each end closes one or is counted as without a begin.
func FuzzPacket(f *testing.F) {
	f.Add([]byte(newPkt(1).varint(13, 3).bytes(12, name(1, "a")).bytes(11, teEvent(1, 5, 1))), []byte(newPkt(1).bytes(11, teEvent(2, 5, 0))))
	f.Add([]byte(newPkt(1).bytes(60, pkt(nil).varint(1, 5).bytes(4, pkt(nil).varint(1, 3)))), []byte{0x5a, 0x02, 0x48})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var d Decoder
		d.Packet(a, 10, true)
		d.Packet(b, 5, true)
		d.Packet(a, 20, true)
		var count [4]int
		for _, e := range d.events {
			count[e.typ]++
		}
		slices, ended := 0, 0
		lost := d.Slices(func(s Slice, done bool) {
			slices++
			if done {
				ended++
				if s.End < s.Start {
					t.Fatalf("slice %+v", s)
				}
			}
		})
		if d.Len() != len(d.events) || slices != count[typeBegin]+count[typeInstant] || ended-count[typeInstant]+lost != count[typeEnd] {
			t.Fatalf("events %v: %d slices, %d ended, %d ends without begin", count, slices, ended, lost)
		}
	})
}
