package trace

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/trace/internal/pb"
)

// kind is what a field of a message must be on the wire.
type kind uint8

const (
	kVarint kind = iota + 1
	kBytes       // string, bytes or a nested message
	kPacked      // a repeated varint: packed (bytes) or one varint per field
)

// message names a proto message's fields this package reads: number → name
// and kind. Fields not listed are skipped, as protobuf readers do.
type message struct {
	name   string
	fields []field // by number; a zero field is one not read
}

type field struct {
	name string
	kind kind
}

func (m *message) field(num protowire.Number) (field, bool) {
	if num < 0 || int(num) >= len(m.fields) || m.fields[num].kind == 0 {
		return field{}, false
	}
	return m.fields[num], true
}

// walker reads the listed fields of data, a message inside the packet pkt
// (data aliases pkt, so offsets are known), checking each one's wire type:
//
//	w := newWalker(pkt, data, mFtraceEvent)
//	for w.next() {
//		switch w.f.Num { … }
//	}
//	if w.err != nil { … }
//
// A malformed field's error names its offset in the packet and its path
// from data ("actual_surface_frame_start(4).jank_type(9)").
type walker struct {
	pkt, data []byte
	m         *message
	it        pb.Iter
	f         pb.Field
	err       error
}

func newWalker(pkt, data []byte, m *message) walker {
	return walker{pkt: pkt, data: data, m: m, it: pb.Fields(data)}
}

func (w *walker) next() bool {
	for w.it.Next() {
		f := w.it.Field()
		def, ok := w.m.field(f.Num)
		if !ok {
			continue
		}
		want := protowire.VarintType
		switch def.kind {
		case kBytes:
			want = protowire.BytesType
		case kPacked:
			if f.Type == protowire.BytesType {
				want = protowire.BytesType
			}
		}
		if f.Type != want {
			w.err = &packetError{off: offsetIn(w.pkt, w.data) + f.Off, field: fieldName(def.name, f.Num), msg: fmt.Sprintf("wire type %d, want %d", f.Type, want)}
			return false
		}
		w.f = f
		return true
	}
	if err := w.it.Err(); err != nil {
		var e *pb.Error
		errors.As(err, &e)
		name := fmt.Sprintf("field %d", e.Num)
		if d, ok := w.m.field(e.Num); ok {
			name = fieldName(d.name, e.Num)
		} else if e.Num == 0 {
			name = ""
		}
		w.err = &packetError{off: offsetIn(w.pkt, w.data) + e.Off, field: name, msg: e.Msg}
	}
	return false
}

// wrap puts the current field's name in front of an error from inside it.
func (w *walker) wrap(err error) error {
	def, _ := w.m.field(w.f.Num)
	return within(err, fieldName(def.name, w.f.Num), offsetIn(w.pkt, w.data)+w.f.Off)
}

// walk calls fn for each listed field of data (see walker); an error fn
// returns for a nested message gets the field's name put in front.
func walk(pkt, data []byte, m *message, fn func(num protowire.Number, f pb.Field) error) error {
	w := newWalker(pkt, data, m)
	for w.next() {
		if err := fn(w.f.Num, w.f); err != nil {
			return w.wrap(err)
		}
	}
	return w.err
}

// within puts a field's name in front of an error from inside it; an error
// that is not a packetError is placed at off.
func within(err error, name string, off int) error {
	if err == nil {
		return nil
	}
	var pe *packetError
	if !errors.As(err, &pe) {
		return &packetError{off: off, field: name, msg: err.Error()}
	}
	if pe.field != "" {
		name += "." + pe.field
	}
	return &packetError{off: pe.off, field: name, msg: pe.msg}
}

// packedInto appends the values of a repeated varint field to dst,
// whichever way it was written.
func packedInto(pkt []byte, f pb.Field, dst *[]uint64) error {
	if f.Type != protowire.BytesType {
		*dst = append(*dst, f.Int)
		return nil
	}
	p := pb.PackedVarints(f.Bytes)
	*dst = slices.Grow(*dst, p.Count())
	for {
		v, ok := p.Next()
		if !ok {
			break
		}
		*dst = append(*dst, v)
	}
	if err := p.Err(); err != nil {
		var e *pb.Error
		errors.As(err, &e)
		return &packetError{off: offsetIn(pkt, f.Bytes) + e.Off, msg: e.Msg}
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

// packetError is a malformed field inside a packet; off is from the packet's
// start.
type packetError struct {
	off   int
	field string
	msg   string
}

func (e *packetError) Error() string { return e.field + ": " + e.msg }

// str is a string field's value, cut to maxString bytes: a name longer than
// that is taken for garbage, not kept whole.
func str(f pb.Field) string { return cutString(f.Bytes) }

func cutString(b []byte) string {
	if len(b) > maxString {
		return string(b[:maxString]) + "…"
	}
	return string(b)
}

// maxString bounds every string kept from a trace (slice, layer and process
// names).
const maxString = 1024

// fieldName is "name(N)".
func fieldName(name string, num protowire.Number) string {
	return name + "(" + strconv.Itoa(int(num)) + ")"
}
