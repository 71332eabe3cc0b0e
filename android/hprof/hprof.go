// Package hprof reads Java heap dumps in the hprof binary format, Android's
// variant included ("JAVA PROFILE 1.0.3", as `am dumpheap` writes them),
// into a class histogram: for each class, how many instances the dump holds
// and their shallow size. Diff names the classes that grew between two dumps
// of one app, which is what a memory gate that failed says of a leak.
//
//	h, err := hprof.ReadHistogram(f)
//	for _, g := range hprof.Diff(first, last)[:3] {
//		fmt.Println(g) // +1,200 com.example.feed.ImageHolder (+37.5 MiB)
//	}
//
// The reader streams: it keeps the dump's strings and one counter per class,
// never the objects, so a dump of any size is read in memory bounded by its
// string table (at most MaxStrings bytes).
//
// The format follows the hprof manual of OpenJDK (JAVA PROFILE 1.0.2) and
// what ART adds to it, as AOSP art/runtime/hprof/hprof.cc writes it and
// LeakCanary's shark HprofRecordReader (square/leakcanary,
// shark/shark-hprof/src/main/java/shark/HprofRecordReader.kt) reads it: the
// heap dump info sub-record (0xFE) that switches between the zygote, image
// and app heaps, the roots 0x89–0x8E and 0x90, and primitive arrays without
// their data (0xC3).
package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// MaxStrings bounds the bytes of the dump's string table the reader keeps;
// a dump past it is refused rather than read into unbounded memory.
const MaxStrings = 256 << 20

// Top-level record tags.
const (
	tagString          = 0x01
	tagLoadClass       = 0x02
	tagHeapDump        = 0x0C
	tagHeapDumpSegment = 0x1C
)

// Heap dump sub-record tags.
const (
	subClassDump      = 0x20
	subInstanceDump   = 0x21
	subObjArrayDump   = 0x22
	subPrimArrayDump  = 0x23
	subPrimArrayNoDat = 0xC3 // Android: a primitive array without its data
	subHeapDumpInfo   = 0xFE // Android: the heap the records after it are in
)

// ClassCount is one row of a histogram.
type ClassCount struct {
	// Name is the class's name as the dump gives it: "java.lang.String",
	// "java.lang.Object[]" in ART's dumps; primitive arrays are named by
	// their element type, "byte[]", "int[]", ….
	Name string
	// Instances counts the class's instances (arrays: the arrays).
	Instances int64
	// ShallowBytes sums their shallow sizes: an instance's field bytes as
	// its INSTANCE DUMP gives them, an object array's length × the
	// identifier size, a primitive array's length × its element's size
	// (also for Android's arrays dumped without their data).
	ShallowBytes int64
}

// Histogram is a heap dump's class histogram.
type Histogram struct {
	// Version is the header's format name, "JAVA PROFILE 1.0.3" for ART.
	Version string
	// IDSize is the size of the dump's identifiers, 4 or 8 bytes.
	IDSize int
	// Taken is the header's timestamp.
	Taken time.Time
	// Classes lists every class with an instance, the largest shallow size
	// first (then by name); classes with no instance are left out.
	Classes []ClassCount
	// ClassDumps counts the CLASS DUMP records: the classes loaded, which
	// are not counted as instances of java.lang.Class.
	ClassDumps int
	// Instances and ShallowBytes are the totals over Classes.
	Instances, ShallowBytes int64
	// Heaps names the heaps of an Android dump in the order they appear
	// ("zygote", "image", "app"); none for other dumps.
	Heaps []string
}

// Class returns the histogram's row for the named class.
func (h *Histogram) Class(name string) (ClassCount, bool) {
	for _, c := range h.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return ClassCount{}, false
}

// FormatError is a dump that is not hprof, or is cut short or corrupt at
// Offset (bytes from the file's start).
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string { return fmt.Sprintf("hprof: offset %d: %s", e.Offset, e.Msg) }

// ErrTruncated is matched (errors.Is) by the error of a dump that ends
// inside a record: a dump still being written, or one cut short.
var ErrTruncated = errors.New("hprof: dump truncated")

type truncatedError struct{ FormatError }

func (e *truncatedError) Is(target error) bool { return target == ErrTruncated }

// primitive type codes and their sizes; 2 is an object reference.
var typeSize = [12]int{4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}

var primName = [12]string{4: "boolean[]", 5: "char[]", 6: "float[]", 7: "double[]", 8: "byte[]", 9: "short[]", 10: "int[]", 11: "long[]"}

// reader walks a dump, counting what it reads.
type reader struct {
	br      *bufio.Reader
	off     int64
	idSize  int
	buf     [8]byte
	strings map[uint64]string
	strLen  int
	classes map[uint64]uint64 // class object id → name string id
	counts  map[uint64]*ClassCount
	prims   [12]ClassCount
	h       *Histogram
}

// ReadHistogram reads a whole heap dump from r and returns its class
// histogram. A dump cut short returns an error matching ErrTruncated, with
// where it ends; any other malformed dump a *FormatError.
func ReadHistogram(r io.Reader) (*Histogram, error) {
	rd := &reader{br: bufio.NewReaderSize(r, 64<<10), strings: map[uint64]string{}, classes: map[uint64]uint64{},
		counts: map[uint64]*ClassCount{}, h: &Histogram{}}
	if err := rd.header(); err != nil {
		return nil, err
	}
	for {
		tag, err := rd.br.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		rd.off++
		if _, err := rd.u4(); err != nil { // time offset
			return nil, err
		}
		n, err := rd.u4()
		if err != nil {
			return nil, err
		}
		if err := rd.record(tag, int64(n)); err != nil {
			return nil, err
		}
	}
	return rd.histogram(), nil
}

func (rd *reader) header() error {
	v, err := rd.br.ReadString(0)
	rd.off += int64(len(v))
	if err != nil || len(v) > 64 || !strings.HasPrefix(v, "JAVA PROFILE ") {
		if len(v) > 32 {
			v = v[:32] + "…"
		}
		return &FormatError{0, fmt.Sprintf("not an hprof heap dump: header %q, want \"JAVA PROFILE 1.0.x\"", strings.TrimSuffix(v, "\x00"))}
	}
	rd.h.Version = strings.TrimSuffix(v, "\x00")
	n, err := rd.u4()
	if err != nil {
		return err
	}
	if n != 4 && n != 8 {
		return &FormatError{rd.off - 4, fmt.Sprintf("identifier size %d, want 4 or 8", n)}
	}
	rd.idSize, rd.h.IDSize = int(n), int(n)
	hi, err := rd.u4()
	if err != nil {
		return err
	}
	lo, err := rd.u4()
	if err != nil {
		return err
	}
	rd.h.Taken = time.UnixMilli(int64(hi)<<32 | int64(lo)).UTC()
	return nil
}

func (rd *reader) truncated(what string) error {
	return &truncatedError{FormatError{rd.off, "dump ends inside " + what}}
}

func (rd *reader) read(n int) ([]byte, error) {
	b := rd.buf[:n]
	if _, err := io.ReadFull(rd.br, b); err != nil {
		return nil, rd.truncated("a record")
	}
	rd.off += int64(n)
	return b, nil
}

func (rd *reader) u1() (byte, error) {
	b, err := rd.read(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (rd *reader) u2() (uint16, error) {
	b, err := rd.read(2)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

func (rd *reader) u4() (uint32, error) {
	b, err := rd.read(4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

func (rd *reader) id() (uint64, error) {
	b, err := rd.read(rd.idSize)
	if err != nil {
		return 0, err
	}
	if rd.idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b)), nil
	}
	return binary.BigEndian.Uint64(b), nil
}

func (rd *reader) skip(n int64) error {
	for n > 0 {
		k := int(min(n, 1<<30))
		d, err := rd.br.Discard(k)
		rd.off += int64(d)
		if err != nil {
			return rd.truncated("a record")
		}
		n -= int64(k)
	}
	return nil
}

// record reads one top-level record of n bytes after its header.
func (rd *reader) record(tag byte, n int64) error {
	switch tag {
	case tagString:
		if n < int64(rd.idSize) {
			return &FormatError{rd.off, fmt.Sprintf("string record of %d bytes, shorter than an identifier", n)}
		}
		id, err := rd.id()
		if err != nil {
			return err
		}
		n -= int64(rd.idSize)
		if rd.strLen+int(n) > MaxStrings {
			return &FormatError{rd.off, fmt.Sprintf("string table past %d bytes", MaxStrings)}
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(rd.br, b); err != nil {
			return rd.truncated("a string record")
		}
		rd.off += n
		rd.strLen += int(n)
		rd.strings[id] = string(b)
		return nil
	case tagLoadClass:
		if n != int64(8+2*rd.idSize) {
			return &FormatError{rd.off, fmt.Sprintf("load class record of %d bytes, want %d", n, 8+2*rd.idSize)}
		}
		if _, err := rd.u4(); err != nil { // serial
			return err
		}
		cls, err := rd.id()
		if err != nil {
			return err
		}
		if _, err := rd.u4(); err != nil { // stack trace serial
			return err
		}
		name, err := rd.id()
		if err != nil {
			return err
		}
		rd.classes[cls] = name
		return nil
	case tagHeapDump, tagHeapDumpSegment:
		return rd.heapDump(rd.off + n)
	}
	return rd.skip(n)
}

// heapDump reads the sub-records of a heap dump (segment) ending at end.
func (rd *reader) heapDump(end int64) error {
	for rd.off < end {
		at := rd.off
		tag, err := rd.u1()
		if err != nil {
			return err
		}
		if err := rd.sub(tag); err != nil {
			return err
		}
		if rd.off > end {
			return &FormatError{at, fmt.Sprintf("heap dump sub-record 0x%02X runs past its segment's end at %d", tag, end)}
		}
	}
	return nil
}

// rootSize is the bytes after the tag of each GC root sub-record, in
// identifiers and then bytes.
var rootSize = map[byte][2]int{
	0xFF: {1, 0}, 0x01: {2, 0}, 0x02: {1, 8}, 0x03: {1, 8}, 0x04: {1, 4}, 0x05: {1, 0}, 0x06: {1, 4},
	0x07: {1, 0}, 0x08: {1, 8},
	// Android's: interned string, finalizing, debugger, reference cleanup,
	// VM internal, JNI monitor, unreachable.
	0x89: {1, 0}, 0x8A: {1, 0}, 0x8B: {1, 0}, 0x8C: {1, 0}, 0x8D: {1, 0}, 0x8E: {1, 8}, 0x90: {1, 0},
}

// sub reads one heap dump sub-record after its tag.
func (rd *reader) sub(tag byte) error {
	if s, ok := rootSize[tag]; ok {
		return rd.skip(int64(s[0]*rd.idSize + s[1]))
	}
	switch tag {
	case subHeapDumpInfo:
		if _, err := rd.u4(); err != nil {
			return err
		}
		name, err := rd.id()
		if err != nil {
			return err
		}
		if s, ok := rd.strings[name]; ok && !slices.Contains(rd.h.Heaps, s) {
			rd.h.Heaps = append(rd.h.Heaps, s)
		}
		return nil
	case subClassDump:
		return rd.classDump()
	case subInstanceDump:
		if err := rd.skip(int64(rd.idSize + 4)); err != nil {
			return err
		}
		cls, err := rd.id()
		if err != nil {
			return err
		}
		n, err := rd.u4()
		if err != nil {
			return err
		}
		rd.count(cls, int64(n))
		return rd.skip(int64(n))
	case subObjArrayDump:
		if err := rd.skip(int64(rd.idSize + 4)); err != nil {
			return err
		}
		n, err := rd.u4()
		if err != nil {
			return err
		}
		cls, err := rd.id()
		if err != nil {
			return err
		}
		size := int64(n) * int64(rd.idSize)
		rd.count(cls, size)
		return rd.skip(size)
	case subPrimArrayDump, subPrimArrayNoDat:
		if err := rd.skip(int64(rd.idSize + 4)); err != nil {
			return err
		}
		n, err := rd.u4()
		if err != nil {
			return err
		}
		t, err := rd.u1()
		if err != nil {
			return err
		}
		if int(t) >= len(typeSize) || typeSize[t] == 0 {
			return &FormatError{rd.off - 1, fmt.Sprintf("primitive array of type %d, not a primitive type", t)}
		}
		size := int64(n) * int64(typeSize[t])
		rd.prims[t].Instances++
		rd.prims[t].ShallowBytes += size
		if tag == subPrimArrayNoDat {
			return nil
		}
		return rd.skip(size)
	}
	return &FormatError{rd.off - 1, fmt.Sprintf("unknown heap dump sub-record tag 0x%02X", tag)}
}

func (rd *reader) count(cls uint64, size int64) {
	c := rd.counts[cls]
	if c == nil {
		c = &ClassCount{}
		rd.counts[cls] = c
	}
	c.Instances++
	c.ShallowBytes += size
}

// valueSize is the bytes of a field value of type t.
func (rd *reader) valueSize(t byte) (int, error) {
	switch {
	case t == 2 || t == 1: // object (1 is the manual's "array object")
		return rd.idSize, nil
	case int(t) < len(typeSize) && typeSize[t] > 0:
		return typeSize[t], nil
	}
	return 0, &FormatError{rd.off - 1, fmt.Sprintf("field of type %d, not a basic type", t)}
}

// classDump reads a CLASS DUMP sub-record: its constant pool, static and
// instance fields are skipped by their types.
func (rd *reader) classDump() error {
	rd.h.ClassDumps++
	// class id, stack serial, super, loader, signers, domain, 2 reserved,
	// instance size
	if err := rd.skip(int64(7*rd.idSize + 8)); err != nil {
		return err
	}
	// constant pool: u2 index, u1 type, value; statics: id name, u1 type,
	// value; instance fields: id name, u1 type.
	for part, head := range []int{2, rd.idSize, rd.idSize} {
		n, err := rd.u2()
		if err != nil {
			return err
		}
		for range n {
			if err := rd.skip(int64(head)); err != nil {
				return err
			}
			t, err := rd.u1()
			if err != nil {
				return err
			}
			if part == 2 {
				continue
			}
			s, err := rd.valueSize(t)
			if err != nil {
				return err
			}
			if err := rd.skip(int64(s)); err != nil {
				return err
			}
		}
	}
	return nil
}

// histogram names the counted classes and sorts them.
func (rd *reader) histogram() *Histogram {
	h := rd.h
	byName := map[string]*ClassCount{}
	add := func(name string, c ClassCount) {
		if c.Instances == 0 {
			return
		}
		if e := byName[name]; e != nil {
			e.Instances += c.Instances
			e.ShallowBytes += c.ShallowBytes
			return
		}
		c.Name = name
		byName[name] = &c
	}
	for cls, c := range rd.counts {
		name, ok := rd.strings[rd.classes[cls]]
		if _, loaded := rd.classes[cls]; !loaded || !ok {
			name = fmt.Sprintf("class@0x%x", cls)
		}
		add(name, *c)
	}
	for t, c := range rd.prims {
		add(primName[t], c)
	}
	for _, c := range byName {
		h.Classes = append(h.Classes, *c)
		h.Instances += c.Instances
		h.ShallowBytes += c.ShallowBytes
	}
	slices.SortFunc(h.Classes, func(a, b ClassCount) int {
		if a.ShallowBytes != b.ShallowBytes {
			if a.ShallowBytes > b.ShallowBytes {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return h
}
