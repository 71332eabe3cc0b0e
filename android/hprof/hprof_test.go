package hprof_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/hprof"
)

// realDump is a heap dump of an Android app that LeakCanary ships as a test
// resource (testdata/SOURCES.md).
const realDump = "testdata/leak_service_binder.hprof.gz"

func gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The real Android dump's histogram equals the one testdata/histogram.py
// computes by its own walk of the file, class by class.
func TestRealAndroidDumpMatchesReference(t *testing.T) {
	data := gunzip(t, realDump)
	h, err := hprof.ReadHistogram(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != "JAVA PROFILE 1.0.3" || h.IDSize != 4 {
		t.Errorf("header %q, identifiers of %d bytes; want JAVA PROFILE 1.0.3 and 4", h.Version, h.IDSize)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to compute the reference histogram with: " + err.Error())
	}
	out, err := exec.Command(py, filepath.Join("testdata", "histogram.py"), realDump).Output()
	if err != nil {
		t.Fatalf("testdata/histogram.py: %v", err)
	}
	want := map[string]hprof.ClassCount{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		n, _ := strconv.ParseInt(f[1], 10, 64)
		b, _ := strconv.ParseInt(f[2], 10, 64)
		want[f[0]] = hprof.ClassCount{Name: f[0], Instances: n, ShallowBytes: b}
	}
	if len(want) < 100 {
		t.Fatalf("the reference lists %d classes", len(want))
	}
	if len(h.Classes) != len(want) {
		t.Errorf("%d classes, the reference %d", len(h.Classes), len(want))
	}
	for _, c := range h.Classes {
		if w, ok := want[c.Name]; !ok || w != c {
			t.Errorf("%+v, the reference %+v", c, w)
		}
	}
	t.Logf("%d classes, %d instances, %d shallow bytes, heaps %v, %d class dumps; top: %+v %+v %+v",
		len(h.Classes), h.Instances, h.ShallowBytes, h.Heaps, h.ClassDumps, h.Classes[0], h.Classes[1], h.Classes[2])
}

// dump builds a small Android heap dump: n instances of a class of 16
// field bytes, one byte[] of 10 and one object array of 3, in a segment of
// the "app" heap.
func dump(n int) []byte {
	var b bytes.Buffer
	b.WriteString("JAVA PROFILE 1.0.3\x00")
	u4 := func(w *bytes.Buffer, v uint32) { binary.Write(w, binary.BigEndian, v) }
	u4(&b, 4)
	u4(&b, 0)
	u4(&b, 1000)
	rec := func(tag byte, body []byte) {
		b.WriteByte(tag)
		u4(&b, 0)
		u4(&b, uint32(len(body)))
		b.Write(body)
	}
	str := func(id uint32, s string) {
		var r bytes.Buffer
		u4(&r, id)
		r.WriteString(s)
		rec(0x01, r.Bytes())
	}
	str(1, "com.example.Leak")
	str(2, "app")
	str(3, "java.lang.Object[]")
	for _, c := range [][2]uint32{{100, 1}, {101, 3}} {
		var r bytes.Buffer
		u4(&r, c[0])
		u4(&r, c[0])
		u4(&r, 0)
		u4(&r, c[1])
		rec(0x02, r.Bytes())
	}
	var s bytes.Buffer
	s.WriteByte(0xFE)
	u4(&s, 'A')
	u4(&s, 2)
	s.WriteByte(0x89) // interned string root
	u4(&s, 7)
	s.WriteByte(0x20) // class dump: no constant, one int static, one field
	u4(&s, 100)
	for range 7 {
		u4(&s, 0)
	}
	u4(&s, 16)
	s.Write([]byte{0, 0, 0, 1})
	u4(&s, 2)
	s.WriteByte(10)
	u4(&s, 5)
	s.Write([]byte{0, 1})
	u4(&s, 2)
	s.WriteByte(11)
	for i := range n {
		s.WriteByte(0x21)
		u4(&s, uint32(1000+i))
		u4(&s, 0)
		u4(&s, 100)
		u4(&s, 16)
		s.Write(make([]byte, 16))
	}
	s.WriteByte(0x23)
	u4(&s, 9)
	u4(&s, 0)
	u4(&s, 10)
	s.WriteByte(8)
	s.Write(make([]byte, 10))
	s.WriteByte(0x22)
	u4(&s, 10)
	u4(&s, 0)
	u4(&s, 3)
	u4(&s, 101)
	s.Write(make([]byte, 12))
	s.WriteByte(0xC3) // an int[] of 4 without its data
	u4(&s, 11)
	u4(&s, 0)
	u4(&s, 4)
	s.WriteByte(10)
	rec(0x1C, s.Bytes())
	rec(0x2C, nil)
	return b.Bytes()
}

func TestBuiltDump(t *testing.T) {
	h, err := hprof.ReadHistogram(bytes.NewReader(dump(5)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []hprof.ClassCount{
		{"com.example.Leak", 5, 80}, {"int[]", 1, 16}, {"java.lang.Object[]", 1, 12}, {"byte[]", 1, 10},
	} {
		if c, _ := h.Class(want.Name); c != want {
			t.Errorf("%s: %+v, want %+v", want.Name, c, want)
		}
	}
	if h.Classes[0].Name != "com.example.Leak" || h.Instances != 8 || h.ShallowBytes != 118 || h.ClassDumps != 1 {
		t.Errorf("histogram %+v", h)
	}
	if len(h.Heaps) != 1 || h.Heaps[0] != "app" {
		t.Errorf("heaps %v, want [app]", h.Heaps)
	}
	if h.Taken.UnixMilli() != 1000 {
		t.Errorf("taken %v, want 1s after the epoch", h.Taken)
	}
}

// A dump cut anywhere inside a record is truncated, never read as a
// smaller heap: a dump still being written must not pass for a whole one.
func TestTruncatedDump(t *testing.T) {
	d := dump(3)
	for n := range len(d) {
		_, err := hprof.ReadHistogram(bytes.NewReader(d[:n]))
		switch {
		case n >= 31 && isRecordBoundary(d, n):
			if err != nil {
				t.Fatalf("cut between records at %d: %v", n, err)
			}
		case n > 31 && !errors.Is(err, hprof.ErrTruncated):
			t.Fatalf("cut at %d of %d: %v, want truncated", n, len(d), err)
		case err == nil:
			t.Fatalf("cut at %d of %d read whole", n, len(d))
		}
	}
	data := gunzip(t, realDump)
	_, err := hprof.ReadHistogram(bytes.NewReader(data[:len(data)/2]))
	if !errors.Is(err, hprof.ErrTruncated) {
		t.Errorf("the real dump cut in half: %v, want truncated", err)
	}
}

// isRecordBoundary reports whether n falls between top-level records of d.
func isRecordBoundary(d []byte, n int) bool {
	p := 31 // header of "JAVA PROFILE 1.0.3\0", id size, timestamp
	for p < n && p+9 <= len(d) {
		p += 9 + int(binary.BigEndian.Uint32(d[p+5:]))
	}
	return p == n
}

func TestNotHprof(t *testing.T) {
	_, err := hprof.ReadHistogram(strings.NewReader("PK\x03\x04 a zip file"))
	var fe *hprof.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), `"PK\x03\x04 a zip file"`) {
		t.Errorf("error %v, want a FormatError quoting the header", err)
	}
	d := dump(1)
	d[len(d)-9-14] = 0x47 // the tag of the last sub-record (0xC3, 13 bytes after it)
	if _, err := hprof.ReadHistogram(bytes.NewReader(d)); err == nil || !strings.Contains(err.Error(), "unknown heap dump sub-record tag 0x47") {
		t.Errorf("error %v, want the unknown tag named", err)
	}
}

func TestDiff(t *testing.T) {
	a, _ := hprof.ReadHistogram(bytes.NewReader(dump(2)))
	b, _ := hprof.ReadHistogram(bytes.NewReader(dump(1202)))
	g := hprof.Diff(a, b)
	if len(g) != 1 || g[0].String() != "+1,200 com.example.Leak (+18.8 KiB)" || g[0].Before != 2 || g[0].After != 1202 {
		t.Errorf("diff %+v", g)
	}
	if g := hprof.Diff(b, a); len(g) != 0 {
		t.Errorf("diff of a shrinking heap %+v, want none", g)
	}
	for v, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1200: "-1,200"} {
		if got := hprof.Thousands(v); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[int64]string{512: "512 B", 1536: "1.5 KiB", 39321600: "37.5 MiB", 3 << 30: "3.0 GiB"} {
		if got := hprof.Bytes(v); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", v, got, want)
		}
	}
}

func FuzzReadHistogram(f *testing.F) {
	f.Add(dump(2))
	data := gunzip(f, realDump)
	f.Add(data[:4096])
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := hprof.ReadHistogram(bytes.NewReader(b))
		if err != nil {
			return
		}
		var n, size int64
		for _, c := range h.Classes {
			if c.Instances <= 0 || c.ShallowBytes < 0 {
				t.Fatalf("class %+v", c)
			}
			n += c.Instances
			size += c.ShallowBytes
		}
		if n != h.Instances || size != h.ShallowBytes {
			t.Fatalf("totals %d, %d; the classes sum to %d, %d", h.Instances, h.ShallowBytes, n, size)
		}
	})
}
