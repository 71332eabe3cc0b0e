// Package hprofw writes small Android heap dumps (JAVA PROFILE 1.0.3, as
// ART's hprof.cc lays them out: strings, LOAD CLASS records, then one HEAP
// DUMP SEGMENT per heap opened by a HEAP DUMP INFO sub-record) for the
// simulated phone's `am dumpheap`. Each class is given with how many
// instances to write and their field bytes, so a dump's class histogram is
// known before it is read.
package hprofw

import (
	"bytes"
	"encoding/binary"
)

// Class is a class of the dump and its instances.
type Class struct {
	Name string
	// Instances is how many instances the dump holds, each with
	// FieldBytes bytes of field values (its shallow size as hprof gives it).
	Instances  int
	FieldBytes int
}

// Heap is one of ART's heaps ("zygote", "image", "app") and its classes.
type Heap struct {
	ID      uint32 // 'Z', 'I', 'A' as ART numbers them
	Name    string
	Classes []Class
	// ByteArrays are byte[] lengths, each written with its data.
	ByteArrays []int
}

// Write lays out a dump of 4-byte identifiers taken at ms since the epoch.
func Write(ms int64, heaps []Heap) []byte {
	w := &writer{}
	w.buf.WriteString("JAVA PROFILE 1.0.3\x00")
	w.u4(&w.buf, 4)
	w.u4(&w.buf, uint32(ms>>32))
	w.u4(&w.buf, uint32(ms))
	classID := map[string]uint32{}
	for _, h := range heaps {
		w.str(h.Name)
		for _, c := range h.Classes {
			if _, ok := classID[c.Name]; !ok {
				id := w.next()
				classID[c.Name] = id
				var r bytes.Buffer
				w.u4(&r, uint32(len(classID)))
				w.u4(&r, id)
				w.u4(&r, 0)
				w.u4(&r, w.str(c.Name))
				w.record(0x02, r.Bytes())
			}
		}
	}
	for _, h := range heaps {
		var s bytes.Buffer
		s.WriteByte(0xFE)
		w.u4(&s, h.ID)
		w.u4(&s, w.strs[h.Name])
		for _, c := range h.Classes {
			s.WriteByte(0x20) // CLASS DUMP: no constant, no static
			w.u4(&s, classID[c.Name])
			for range 7 {
				w.u4(&s, 0)
			}
			w.u4(&s, uint32(c.FieldBytes))
			s.Write([]byte{0, 0, 0, 0, 0, 1}) // one int field
			w.u4(&s, w.str("value"))
			s.WriteByte(10)
			for range c.Instances {
				s.WriteByte(0x21)
				w.u4(&s, w.next())
				w.u4(&s, 0)
				w.u4(&s, classID[c.Name])
				w.u4(&s, uint32(c.FieldBytes))
				s.Write(make([]byte, c.FieldBytes))
			}
		}
		for _, n := range h.ByteArrays {
			s.WriteByte(0x23)
			w.u4(&s, w.next())
			w.u4(&s, 0)
			w.u4(&s, uint32(n))
			s.WriteByte(8)
			s.Write(make([]byte, n))
		}
		w.record(0x1C, s.Bytes())
	}
	w.record(0x2C, nil)
	return w.buf.Bytes()
}

type writer struct {
	buf  bytes.Buffer
	id   uint32
	strs map[string]uint32
}

func (w *writer) next() uint32 { w.id += 8; return 0x12c00000 + w.id }

func (w *writer) u4(b *bytes.Buffer, v uint32) { binary.Write(b, binary.BigEndian, v) }

func (w *writer) record(tag byte, body []byte) {
	w.buf.WriteByte(tag)
	w.u4(&w.buf, 0)
	w.u4(&w.buf, uint32(len(body)))
	w.buf.Write(body)
}

// str is the identifier of a string record for s, written the first time.
func (w *writer) str(s string) uint32 {
	if w.strs == nil {
		w.strs = map[string]uint32{}
	}
	if id, ok := w.strs[s]; ok {
		return id
	}
	id := w.next()
	w.strs[s] = id
	var r bytes.Buffer
	w.u4(&r, id)
	r.WriteString(s)
	w.record(0x01, r.Bytes())
	return id
}
