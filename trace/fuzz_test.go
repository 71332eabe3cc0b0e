package trace_test

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
)

// fuzzSeeds are whole and broken traces of every kind the package reads,
// small: the fuzzer minimises what it finds, which is slow on large inputs.
func fuzzSeeds(f *testing.F) {
	data, _ := genTrace(f, genOpts{frames: 3, cpus: 2, noiseGap: 3_000_000, seed: 9, truth: true})
	f.Add(data)
	f.Add(data[:len(data)/2])
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(data[:packetEnds(data)[3]])
	zw.Close()
	f.Add(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType),
		protowire.AppendBytes(protowire.AppendTag(nil, 50, protowire.BytesType), z.Bytes())))
	if dir, err := fixtures.Root(); err == nil {
		if real, err := os.ReadFile(dir + "/" + nowInAndroid); err == nil {
			f.Add(real[:2048])
			ends := packetEnds(real)
			f.Add(real[ends[100]:ends[102]])
		}
	}
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	f.Add([]byte{0x0a, 0x05, 0x9a, 0x05, 0x02, 0x22, 0x00})
}

// FuzzAnalyze: no input makes Analyze panic; an error is a FormatError at
// an offset inside the input; every janky frame's states add up to its
// length.
func FuzzAnalyze(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := trace.Analyze(bytes.NewReader(data), trace.Options{MaxPacket: 1 << 20})
		if a == nil {
			t.Fatal("no analysis")
		}
		if err != nil {
			var fe *trace.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a FormatError", err, err)
			}
			gz := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
			if !gz && (fe.Offset < 0 || fe.Offset > int64(len(data))) {
				t.Fatalf("offset %d outside the %d-byte input", fe.Offset, len(data))
			}
		}
		for _, jf := range a.Janky {
			if jf.End < jf.Start {
				t.Fatalf("frame ends before it starts: %+v", jf.Frame)
			}
			if jf.MainThread != nil && jf.MainThread.Total() != jf.End-jf.Start {
				t.Fatalf("states %+v add up to %d, the frame lasts %d", *jf.MainThread, jf.MainThread.Total(), jf.End-jf.Start)
			}
			for _, s := range jf.Slices {
				if s.End < s.Start {
					t.Fatalf("slice ends before it starts: %+v", s)
				}
			}
		}
		a.All()
	})
}

// FuzzReader: the Reader returns packets that lie inside the input, then
// io.EOF or a FormatError, and keeps returning that error.
func FuzzReader(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := trace.NewReader(bytes.NewReader(data))
		r.SetMaxPacket(1 << 20)
		gz := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
		for {
			p, err := r.Next()
			if err != nil {
				var fe *trace.FormatError
				if err != io.EOF && !errors.As(err, &fe) {
					t.Fatalf("error %v (%T)", err, err)
				}
				if _, again := r.Next(); again != err {
					t.Fatalf("after %v, Next says %v", err, again)
				}
				return
			}
			if !gz && !p.Compressed && (p.Offset < 0 || p.Offset+int64(len(p.Data)) > int64(len(data)) ||
				!bytes.Equal(data[p.Offset:p.Offset+int64(len(p.Data))], p.Data)) {
				t.Fatalf("packet at %d (%d bytes) is not the input's bytes there", p.Offset, len(p.Data))
			}
		}
	})
}
