// Package pb walks the fields of protobuf messages by field number, the wire
// layer under package trace: no generated code, no reflection, every length
// checked against what is left, every failure an error naming where. A
// Walker reads the fields a Message lists (perfetto.go lists those of
// perfetto's messages that package trace reads), checks their wire types
// and names the path to a malformed one.
package pb

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field is one field of a message as it is on the wire.
type Field struct {
	Num  protowire.Number
	Type protowire.Type
	// Int is the value of a varint, fixed32 or fixed64 field.
	Int uint64
	// Bytes is the payload of a length-delimited field (a string, bytes, a
	// nested message or a packed repeated field); it aliases the message.
	Bytes []byte
	// Off is where the field's tag starts, from the start of the message.
	Off int
}

// Int32 is Int as a proto int32: negative values are sign-extended varints.
func (f Field) Int32() int32 { return int32(int64(f.Int)) }

// Int64 is Int as a proto int64.
func (f Field) Int64() int64 { return int64(f.Int) }

// Error is a malformed message: what is wrong, and where.
type Error struct {
	Off int              // from the start of the message
	Num protowire.Number // the field being read, 0 when its tag itself is broken
	Msg string
}

func (e *Error) Error() string {
	if e.Num == 0 {
		return fmt.Sprintf("offset %d: %s", e.Off, e.Msg)
	}
	return fmt.Sprintf("offset %d: field %d: %s", e.Off, e.Num, e.Msg)
}

// Iter walks the fields of one message in wire order.
type Iter struct {
	b   []byte
	off int
	f   Field
	err error
}

// Fields starts a walk over the message b.
func Fields(b []byte) Iter { return Iter{b: b} }

// Next reads the next field; it returns false at the end of the message or
// at the first malformed field (see Err).
func (it *Iter) Next() bool {
	if it.err != nil || it.off >= len(it.b) {
		return false
	}
	start := it.off
	rest := it.b[start:]
	num, typ, n := protowire.ConsumeTag(rest)
	if n < 0 {
		it.err = &Error{Off: start, Msg: "bad tag: " + protowire.ParseError(n).Error()}
		return false
	}
	f := Field{Num: num, Type: typ, Off: start}
	rest = rest[n:]
	var m int
	switch typ {
	case protowire.VarintType:
		f.Int, m = protowire.ConsumeVarint(rest)
	case protowire.Fixed32Type:
		var v uint32
		v, m = protowire.ConsumeFixed32(rest)
		f.Int = uint64(v)
	case protowire.Fixed64Type:
		f.Int, m = protowire.ConsumeFixed64(rest)
	case protowire.BytesType:
		f.Bytes, m = protowire.ConsumeBytes(rest)
	case protowire.StartGroupType:
		// Groups are obsolete and perfetto writes none, but a foreign message
		// may hold one: skip it whole.
		f.Bytes, m = protowire.ConsumeGroup(num, rest)
	default:
		it.err = &Error{Off: start, Num: num, Msg: fmt.Sprintf("wire type %d is not a protobuf wire type", typ)}
		return false
	}
	if m < 0 {
		msg := protowire.ParseError(m).Error()
		if typ == protowire.BytesType {
			if l, k := protowire.ConsumeVarint(rest); k > 0 {
				msg = fmt.Sprintf("length %d runs past the end of the message (%d bytes left)", l, len(rest)-k)
			}
		}
		it.err = &Error{Off: start, Num: num, Msg: msg}
		return false
	}
	it.off = start + n + m
	it.f = f
	return true
}

// Field is the field Next just read.
func (it *Iter) Field() Field { return it.f }

// Err is the malformed field that stopped the walk, or nil.
func (it *Iter) Err() error { return it.err }

// Packed walks a packed repeated varint field's payload.
type Packed struct {
	b   []byte
	off int
	err error
}

// PackedVarints starts a walk over a packed field's payload.
func PackedVarints(b []byte) Packed { return Packed{b: b} }

// Next returns the next value; ok is false at the end or on a broken varint
// (see Err).
func (p *Packed) Next() (v uint64, ok bool) {
	if p.err != nil || p.off >= len(p.b) {
		return 0, false
	}
	v, n := protowire.ConsumeVarint(p.b[p.off:])
	if n < 0 {
		p.err = &Error{Off: p.off, Msg: "packed varint: " + protowire.ParseError(n).Error()}
		return 0, false
	}
	p.off += n
	return v, true
}

// Err is the broken varint that stopped the walk, or nil.
func (p *Packed) Err() error { return p.err }

// Count is how many varints the payload holds, without decoding them: the
// bytes without the continuation bit. A truncated last varint is not
// counted.
func (p *Packed) Count() int {
	n := 0
	for _, c := range p.b {
		if c < 0x80 {
			n++
		}
	}
	return n
}
