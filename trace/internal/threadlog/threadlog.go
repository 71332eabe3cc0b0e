// Package threadlog keeps the events of a thread that package trace may
// need, packed, and replays them in time order: a trace's scheduler and
// atrace events of a thread come out of order across CPUs, and a busy
// thread has millions of them.
package threadlog

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// Event is one event of a thread, kept small: there can be millions.
type Event struct {
	Ts   int64  // boottime ns
	Arg  uint32 // slice name index
	Kind Kind
	St   uint8 // ThreadState after a switch-out
}

// Kind is what an Event is.
type Kind uint8

// The kinds of Event.
const (
	SwitchIn Kind = iota + 1
	SwitchOut
	Wake
	BinderCall
	BinderReply
	Begin
	End
)

// Log is a thread's events in the order they were read, packed: a zigzag
// varint of the time since the previous event (events of different CPUs
// come out of order), a byte of kind and state, and for a slice begin a
// varint of its name. About 4 bytes an event instead of 16: without a
// package to look at, every thread that may be a main thread is kept.
type Log struct {
	buf  []byte
	last int64
	n    int
	// latest is the latest time added, back the furthest an event came
	// before an event added earlier: the events come in time order but
	// for that (each CPU's are in order, and the CPUs' bundles take
	// turns).
	latest, back int64
}

// Add appends an event.
func (t *Log) Add(e Event) {
	t.buf = protowire.AppendVarint(t.buf, protowire.EncodeZigZag(e.Ts-t.last))
	t.last = e.Ts
	if t.n == 0 || e.Ts > t.latest {
		t.latest = e.Ts
	} else {
		t.back = max(t.back, t.latest-e.Ts)
	}
	t.buf = append(t.buf, uint8(e.Kind)|e.St<<4)
	if e.Kind == Begin {
		t.buf = protowire.AppendVarint(t.buf, uint64(e.Arg))
	}
	t.n++
}

// Each unpacks the log and hands its events to fn in time order, those of
// one time in the order they came, holding only the events that may yet
// be passed by one to come: those within back of the latest unpacked (a
// nil log has none).
func (t *Log) Each(fn func(Event)) {
	if t == nil {
		return
	}
	var h evHeap
	var ts, latest int64
	i := 0
	for b := t.buf; len(b) > 0; i++ {
		d, n := protowire.ConsumeVarint(b)
		ts += protowire.DecodeZigZag(d)
		e := Event{Ts: ts, Kind: Kind(b[n] & 0x0f), St: b[n] >> 4}
		b = b[n+1:]
		if e.Kind == Begin {
			v, m := protowire.ConsumeVarint(b)
			e.Arg = uint32(v)
			b = b[m:]
		}
		if i == 0 || ts > latest {
			latest = ts
		}
		h.push(ordered{e, i})
		// Every event still to come is at latest − back or later.
		for len(h) > 0 && h[0].Ts <= latest-t.back {
			fn(h.pop().Event)
		}
	}
	for len(h) > 0 {
		fn(h.pop().Event)
	}
}

// ordered is an event and its place in a log.
type ordered struct {
	Event
	i int
}

// evHeap orders events by time, then by their place: a binary heap of its
// own, since container/heap's interface boxes every event pushed and
// popped (an allocation per event, a third of replaying a busy thread).
type evHeap []ordered

func (h evHeap) less(a, b int) bool {
	return h[a].Ts < h[b].Ts || h[a].Ts == h[b].Ts && h[a].i < h[b].i
}

func (h *evHeap) push(o ordered) {
	*h = append(*h, o)
	for j := len(*h) - 1; j > 0; {
		p := (j - 1) / 2
		if !h.less(j, p) {
			break
		}
		(*h)[p], (*h)[j] = (*h)[j], (*h)[p]
		j = p
	}
}

func (h *evHeap) pop() ordered {
	old := *h
	top, n := old[0], len(old)-1
	old[0] = old[n]
	*h = old[:n]
	for j := 0; ; {
		c := 2*j + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, j) {
			break
		}
		old[j], old[c] = old[c], old[j]
		j = c
	}
	return top
}
