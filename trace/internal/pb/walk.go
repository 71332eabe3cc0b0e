package pb

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// Kind is what a field of a message must be on the wire.
type Kind uint8

// The kinds a Def can have.
const (
	KVarint Kind = iota + 1 // an integer or bool
	KBytes                  // string, bytes or a nested message
	KPacked                 // a repeated varint: packed (bytes) or one varint per field
)

// Message names the fields of a proto message a reader reads: number →
// name and kind. Fields not listed are skipped, as protobuf readers do.
type Message struct {
	name   string
	fields []Def // by number; a zero Def is a field not read
}

// Def is one listed field: its proto name and wire kind.
type Def struct {
	Name string
	Kind Kind
}

// NewMessage lists the fields of the message name that a reader reads.
func NewMessage(name string, fields map[protowire.Number]Def) *Message {
	m := &Message{name: name}
	for num, f := range fields {
		for int(num) >= len(m.fields) {
			m.fields = append(m.fields, Def{})
		}
		m.fields[num] = f
	}
	return m
}

func (m *Message) def(num protowire.Number) (Def, bool) {
	if num < 0 || int(num) >= len(m.fields) || m.fields[num].Kind == 0 {
		return Def{}, false
	}
	return m.fields[num], true
}

// FieldName is the listed field num's "name(N)"; "(N)" for one not listed.
func (m *Message) FieldName(num protowire.Number) string {
	d, _ := m.def(num)
	return FieldName(d.Name, num)
}

// Walker reads the listed fields of data, a message inside the packet pkt
// (data aliases pkt, so offsets are known), checking each one's wire type:
//
//	w := pb.NewWalker(pkt, data, mFtraceEvent)
//	for w.Next() {
//		switch w.Field().Num { … }
//	}
//	if w.Err() != nil { … }
//
// A malformed field's error is a *PathError naming its offset in the
// packet and its path from data ("actual_surface_frame_start(4).jank_type(9)").
type Walker struct {
	pkt, data []byte
	m         *Message
	it        Iter
	f         Field
	err       error
}

// NewWalker starts a walk over the listed fields of data, part of pkt.
func NewWalker(pkt, data []byte, m *Message) Walker {
	return Walker{pkt: pkt, data: data, m: m, it: Fields(data)}
}

// Field is the field Next just read.
func (w *Walker) Field() Field { return w.f }

// Err is the malformed field that stopped the walk, or nil.
func (w *Walker) Err() error { return w.err }

// Next reads the next listed field; false at the end of the message or at
// the first malformed field (see Err).
func (w *Walker) Next() bool {
	for w.it.Next() {
		f := w.it.Field()
		def, ok := w.m.def(f.Num)
		if !ok {
			continue
		}
		want := protowire.VarintType
		switch def.Kind {
		case KBytes:
			want = protowire.BytesType
		case KPacked:
			if f.Type == protowire.BytesType {
				want = protowire.BytesType
			}
		}
		if f.Type != want {
			w.err = &PathError{Off: offsetIn(w.pkt, w.data) + f.Off, Field: FieldName(def.Name, f.Num), Msg: fmt.Sprintf("wire type %d, want %d", f.Type, want)}
			return false
		}
		w.f = f
		return true
	}
	if err := w.it.Err(); err != nil {
		var e *Error
		errors.As(err, &e)
		name := fmt.Sprintf("field %d", e.Num)
		if d, ok := w.m.def(e.Num); ok {
			name = FieldName(d.Name, e.Num)
		} else if e.Num == 0 {
			name = ""
		}
		w.err = &PathError{Off: offsetIn(w.pkt, w.data) + e.Off, Field: name, Msg: e.Msg}
	}
	return false
}

// Wrap puts the current field's name in front of an error from inside it.
func (w *Walker) Wrap(err error) error {
	return Within(err, w.m.FieldName(w.f.Num), offsetIn(w.pkt, w.data)+w.f.Off)
}

// Walk calls fn for each listed field of data (see Walker); an error fn
// returns for a nested message gets the field's name put in front.
func Walk(pkt, data []byte, m *Message, fn func(num protowire.Number, f Field) error) error {
	w := NewWalker(pkt, data, m)
	for w.Next() {
		if err := fn(w.f.Num, w.f); err != nil {
			return w.Wrap(err)
		}
	}
	return w.err
}

// Within puts a field's name in front of an error from inside it; an error
// that is not a *PathError is placed at off.
func Within(err error, name string, off int) error {
	if err == nil {
		return nil
	}
	var pe *PathError
	if !errors.As(err, &pe) {
		return &PathError{Off: off, Field: name, Msg: err.Error()}
	}
	if pe.Field != "" {
		name += "." + pe.Field
	}
	return &PathError{Off: pe.Off, Field: name, Msg: pe.Msg}
}

// AppendPacked appends the values of a repeated varint field of pkt to dst,
// whichever way it was written.
func AppendPacked(pkt []byte, f Field, dst *[]uint64) error {
	if f.Type != protowire.BytesType {
		*dst = append(*dst, f.Int)
		return nil
	}
	p := PackedVarints(f.Bytes)
	*dst = slices.Grow(*dst, p.Count())
	for {
		v, ok := p.Next()
		if !ok {
			break
		}
		*dst = append(*dst, v)
	}
	if err := p.Err(); err != nil {
		var e *Error
		errors.As(err, &e)
		return &PathError{Off: offsetIn(pkt, f.Bytes) + e.Off, Msg: e.Msg}
	}
	return nil
}

// offsetIn is where sub starts inside pkt; sub must alias pkt.
func offsetIn(pkt, sub []byte) int {
	if cap(sub) == 0 {
		return len(pkt)
	}
	return cap(pkt) - cap(sub)
}

// PathError is a malformed field inside a packet: Off is from the packet's
// start, Field the path of field names to it.
type PathError struct {
	Off   int
	Field string
	Msg   string
}

func (e *PathError) Error() string { return e.Field + ": " + e.Msg }

// FieldName is "name(N)".
func FieldName(name string, num protowire.Number) string {
	return name + "(" + strconv.Itoa(int(num)) + ")"
}
