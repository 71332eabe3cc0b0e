package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/trace/internal/pb"
)

// DefaultMaxPacket is the largest TracePacket a Reader accepts unless told
// otherwise. Perfetto's own packets are at most a few hundred KiB (a
// compressed batch is kept under 512 KiB); a length beyond this is taken for
// a broken or foreign file rather than buffered.
const DefaultMaxPacket = 64 << 20

// Field numbers of TracePacket (protos/perfetto/trace/trace_packet.proto).
const (
	fieldTracePacket       = 1  // Trace.packet
	fieldCompressedPackets = 50 // TracePacket.compressed_packets (zlib)
	fieldZstdPackets       = 133
)

// Packet is one TracePacket as it is on the wire.
type Packet struct {
	// Offset is where the packet's bytes start in the file. A packet that
	// came out of a compressed batch has the offset of that batch.
	Offset int64
	// Compressed tells that the packet came out of a compressed batch
	// (TracePacket.compressed_packets).
	Compressed bool
	// Data is the encoded TracePacket. It is valid until the next call of
	// Next.
	Data []byte
}

// FormatError is a file that is not (or stops being) a well-formed Perfetto
// trace. Offset is from the start of the file; Field names the field being
// read, as a path of proto field names and numbers.
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("trace: offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("trace: offset %d: %s: %s", e.Offset, e.Field, e.Msg)
}

// Reader reads a Perfetto trace (a Trace message: `repeated TracePacket
// packet = 1`) one packet at a time from an io.Reader, holding one packet in
// memory, never the file. A gzip-compressed file is read as it is (its
// offsets then count uncompressed bytes), and the packets of a
// zlib-compressed batch (TracePacket.compressed_packets) are returned one by
// one like the others.
type Reader struct {
	br        *bufio.Reader
	gz        bool  // the file is gzip-compressed; offsets count uncompressed bytes
	off       int64 // bytes of the (uncompressed) stream consumed
	buf       bytes.Buffer
	inner     []byte // what is left of a decompressed batch
	innerOff  int64  // the offset of the batch the inner packets came from
	innerBuf  bytes.Buffer
	started   bool
	maxPacket int
	skipped   map[string]int
	err       error // sticky: the first error Next returned
}

// NewReader reads the trace r holds.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 256<<10), maxPacket: DefaultMaxPacket, skipped: map[string]int{}}
}

// SetMaxPacket changes the largest packet (and decompressed batch) the
// Reader accepts; n ≤ 0 restores DefaultMaxPacket.
func (r *Reader) SetMaxPacket(n int) {
	if n <= 0 {
		n = DefaultMaxPacket
	}
	r.maxPacket = n
}

// Skipped counts what the Reader passed over without returning it, by kind:
// "zstd_compressed_packets" (batches compressed with zstd, which the standard
// library cannot read) and "unknown_trace_field" (a top-level field other
// than packet).
func (r *Reader) Skipped() map[string]int { return r.skipped }

// Next returns the next packet; io.EOF at the clean end of the file. Any
// other error is a *FormatError, after which Next returns it again.
func (r *Reader) Next() (Packet, error) {
	if r.err != nil {
		return Packet{}, r.err
	}
	p, err := r.next()
	if err != nil {
		r.err = err
	}
	return p, err
}

func (r *Reader) next() (Packet, error) {
	for {
		if len(r.inner) > 0 {
			p, err := r.nextInner()
			if err != nil {
				return Packet{}, err
			}
			if p.Data != nil {
				return p, nil
			}
			continue
		}
		p, err := r.nextOuter()
		if err != nil {
			return Packet{}, err
		}
		batch, zstd, ferr := compressedBatch(p.Data)
		if ferr != nil {
			ferr.Offset += p.Offset
			return Packet{}, ferr
		}
		switch {
		case zstd:
			r.skipped["zstd_compressed_packets"]++
			continue
		case batch != nil:
			if err := r.inflate(batch, p.Offset); err != nil {
				return Packet{}, err
			}
			continue
		}
		return p, nil
	}
}

// nextOuter reads the next top-level packet of the stream.
func (r *Reader) nextOuter() (Packet, error) {
	if !r.started {
		if err := r.start(); err != nil {
			return Packet{}, err
		}
	}
	var head []byte
	if r.off == 0 {
		head, _ = r.br.Peek(8)
		head = bytes.Clone(head)
	}
	for {
		tagOff := r.off
		tag, err := r.varint()
		if err == io.EOF && r.off == tagOff {
			return Packet{}, io.EOF
		}
		if err != nil {
			return Packet{}, r.streamErr(tagOff, "", "packet tag", err)
		}
		num, typ := protowire.DecodeTag(tag)
		if err := checkTag(tagOff, tag, head); err != nil {
			return Packet{}, err
		}
		field := "Trace.packet(1)" // formatted only for another field: every packet passes here
		if num != fieldTracePacket {
			field = fmt.Sprintf("Trace field %d", num)
		}
		if typ != protowire.BytesType {
			if err := r.skipScalar(tagOff, field, typ); err != nil {
				return Packet{}, err
			}
			continue
		}
		n, err := r.varint()
		if err != nil {
			return Packet{}, r.streamErr(tagOff, field, "length", err)
		}
		if n > uint64(r.maxPacket) {
			return Packet{}, &FormatError{Offset: tagOff, Field: field, Msg: fmt.Sprintf("length %d is over the %d-byte limit on a packet (a broken or foreign file)", n, r.maxPacket)}
		}
		if num != fieldTracePacket {
			if err := r.discard(int64(n)); err != nil {
				return Packet{}, r.streamErr(tagOff, field, fmt.Sprintf("%d-byte value", n), err)
			}
			r.skipped["unknown_trace_field"]++
			continue
		}
		return r.readPacket(tagOff, field, n)
	}
}

// start reads a gzip-compressed file through a decompressor.
func (r *Reader) start() error {
	r.started = true
	if head, _ := r.br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(r.br)
		if err != nil {
			return &FormatError{Offset: 0, Msg: "gzip header: " + err.Error()}
		}
		r.br = bufio.NewReaderSize(zr, 256<<10)
		r.gz = true
	}
	return nil
}

// checkTag rejects a tag no trace holds at off; head is the file's first
// bytes.
func checkTag(off int64, tag uint64, head []byte) error {
	num, typ := protowire.DecodeTag(tag)
	if off == 0 && (num != fieldTracePacket || typ != protowire.BytesType) {
		// Every trace starts with a packet (0x0a); anything else is
		// another kind of file.
		return &FormatError{Offset: 0, Msg: fmt.Sprintf("not a Perfetto trace: it starts with % x, a trace with 0a (a TracePacket)", head)}
	}
	if num < protowire.MinValidNumber || num > protowire.MaxValidNumber {
		return &FormatError{Offset: off, Msg: fmt.Sprintf("not a Perfetto trace: tag %#x has field number %d", tag, num)}
	}
	return nil
}

// skipScalar passes over a top-level field that is not length-delimited.
func (r *Reader) skipScalar(tagOff int64, field string, typ protowire.Type) error {
	switch typ {
	case protowire.VarintType:
		if _, err := r.varint(); err != nil {
			return r.streamErr(tagOff, field, "varint value", err)
		}
	case protowire.Fixed32Type, protowire.Fixed64Type:
		n := int64(4)
		if typ == protowire.Fixed64Type {
			n = 8
		}
		if err := r.discard(n); err != nil {
			return r.streamErr(tagOff, field, "fixed value", err)
		}
	default:
		return &FormatError{Offset: tagOff, Field: field, Msg: fmt.Sprintf("not a Perfetto trace: wire type %d", typ)}
	}
	r.skipped["unknown_trace_field"]++
	return nil
}

// readPacket reads the n bytes of the packet whose tag is at tagOff.
func (r *Reader) readPacket(tagOff int64, field string, n uint64) (Packet, error) {
	dataOff := r.off
	// A packet that fits the read buffer is returned where it lies there
	// (valid until the next read), not copied: most packets are small.
	if n <= peekMax {
		if data, err := r.br.Peek(int(n)); err == nil {
			r.br.Discard(len(data))
			r.off += int64(n)
			return Packet{Offset: dataOff, Data: data}, nil
		}
	}
	r.buf.Reset()
	// Grow with what arrives rather than with what the length claims, so
	// a lying length in a short file costs nothing.
	got, err := r.buf.ReadFrom(io.LimitReader(r.br, int64(n)))
	r.off += got
	if err != nil {
		return Packet{}, r.streamErr(tagOff, field, fmt.Sprintf("%d-byte packet", n), err)
	}
	if got < int64(n) {
		return Packet{}, &FormatError{Offset: tagOff, Field: field, Msg: fmt.Sprintf("truncated: the packet claims %d bytes, the file ends after %d", n, got)}
	}
	return Packet{Offset: dataOff, Data: r.buf.Bytes()}, nil
}

// peekMax is the largest packet readPacket leaves in the read buffer: a
// larger one would have the buffer move a large unread tail to its front
// more often than copying the packet costs.
const peekMax = 64 << 10

// streamErr turns a read error into a FormatError.
func (r *Reader) streamErr(off int64, field, what string, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &FormatError{Offset: off, Field: field, Msg: "truncated: the file ends inside the " + what}
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe
	}
	return &FormatError{Offset: off, Field: field, Msg: what + ": " + err.Error()}
}

// varint reads one varint from the stream.
func (r *Reader) varint() (uint64, error) {
	var v uint64
	for i := 0; ; i++ {
		c, err := r.br.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		r.off++
		if i == 9 && c > 1 {
			return 0, &FormatError{Offset: r.off - 10, Msg: "varint overflows 64 bits"}
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
}

func (r *Reader) discard(n int64) error {
	got, err := io.CopyN(io.Discard, r.br, n)
	r.off += got
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// compressedBatch finds a compressed batch in a packet: its zlib payload, or
// zstd when it is one of those.
func compressedBatch(p []byte) (zlibData []byte, zstd bool, err *FormatError) {
	it := pb.Fields(p)
	for it.Next() {
		f := it.Field()
		switch {
		case f.Num == fieldCompressedPackets && f.Type == protowire.BytesType:
			return f.Bytes, false, nil
		case f.Num == fieldZstdPackets && f.Type == protowire.BytesType:
			return nil, true, nil
		}
	}
	// A malformed packet is reported by whoever decodes it; only the batch
	// matters here.
	return nil, false, nil
}

// inflate decompresses a batch into r.inner.
func (r *Reader) inflate(data []byte, off int64) error {
	var zr io.ReadCloser
	var err error
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err = gzip.NewReader(bytes.NewReader(data))
	} else {
		zr, err = zlib.NewReader(bytes.NewReader(data))
	}
	if err != nil {
		return &FormatError{Offset: off, Field: "TracePacket.compressed_packets(50)", Msg: "not zlib data: " + err.Error()}
	}
	defer zr.Close()
	r.innerBuf.Reset()
	n, err := r.innerBuf.ReadFrom(io.LimitReader(zr, int64(r.maxPacket)+1))
	if err != nil {
		return &FormatError{Offset: off, Field: "TracePacket.compressed_packets(50)", Msg: "broken zlib data: " + err.Error()}
	}
	if n > int64(r.maxPacket) {
		return &FormatError{Offset: off, Field: "TracePacket.compressed_packets(50)", Msg: fmt.Sprintf("inflates past the %d-byte limit", r.maxPacket)}
	}
	r.inner = r.innerBuf.Bytes()
	r.innerOff = off
	return nil
}

// nextInner returns the next packet of a decompressed batch; Data is nil
// when the batch held a field that is not a packet (skipped).
func (r *Reader) nextInner() (Packet, error) {
	num, typ, n := protowire.ConsumeTag(r.inner)
	if n < 0 {
		return Packet{}, &FormatError{Offset: r.innerOff, Field: "TracePacket.compressed_packets(50)", Msg: "inflated data: bad tag: " + protowire.ParseError(n).Error()}
	}
	m := protowire.ConsumeFieldValue(num, typ, r.inner[n:])
	if m < 0 {
		return Packet{}, &FormatError{Offset: r.innerOff, Field: "TracePacket.compressed_packets(50)", Msg: fmt.Sprintf("inflated data: field %d: %v", num, protowire.ParseError(m))}
	}
	val := r.inner[n : n+m]
	r.inner = r.inner[n+m:]
	if num != fieldTracePacket || typ != protowire.BytesType {
		r.skipped["unknown_trace_field"]++
		return Packet{}, nil
	}
	data, _ := protowire.ConsumeBytes(val)
	return Packet{Offset: r.innerOff, Compressed: true, Data: data}, nil
}
