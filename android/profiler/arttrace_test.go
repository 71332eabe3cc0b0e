package profiler

import (
	"encoding/binary"
	"errors"
	"github.com/perfgate/perfgate/android/devtext"
	"strconv"
	"strings"
	"testing"
)

// artFile lays out an ART method trace as trace.cc writes one: the text
// header, the 32-byte "SLOW" header and records of size bytes (10: tid,
// method|action, wall µs; 14: tid, method|action, thread metrics.CPU µs, wall µs).
// recs are {tid, method|action, wall µs}.
func artFile(header string, version, size int, startUs uint64, recs [][3]uint32) []byte {
	b := []byte(header)
	h := make([]byte, 32)
	binary.LittleEndian.PutUint32(h, 0x574f4c53)
	binary.LittleEndian.PutUint16(h[4:], uint16(version))
	binary.LittleEndian.PutUint16(h[6:], 32)
	binary.LittleEndian.PutUint64(h[8:], startUs)
	if version == 3 {
		binary.LittleEndian.PutUint16(h[16:], uint16(size))
	}
	b = append(b, h...)
	for _, r := range recs {
		rec := make([]byte, size)
		binary.LittleEndian.PutUint16(rec, uint16(r[0]))
		binary.LittleEndian.PutUint32(rec[2:], r[1])
		binary.LittleEndian.PutUint32(rec[size-4:], r[2])
		if size == 14 {
			binary.LittleEndian.PutUint32(rec[6:], r[2]/3)
		}
		b = append(b, rec...)
	}
	return b
}

// A sampling profile of a main thread (tid 4321): the first sample enters
// loop → dispatchMessage → bind, the second (1 ms later) leaves bind for
// decode, the third leaves decode. Method 0 is printed "0", as C's %#x does.
const artHeader = "*version\n3\ndata-file-overflow=false\nclock=dual\nelapsed-time-usec=3000\nnum-method-calls=7\nclock-call-overhead-nsec=2200\nvm=art\npid=4321\n" +
	"*threads\n4321\tmain\n4330\tRenderThread\n" +
	"*methods\n0\tandroid.os.Looper\tloop\t()V\tLooper.java\n0x4\tandroid.os.Handler\tdispatchMessage\t(Landroid/os/Message;)V\tHandler.java\n" +
	"0x8\tcom.x.Feed\tbind\t(I)V\tFeed.java\n0xc\tcom.x.Cache\tdecode\t()V\tCache.java\n*end\n"

func TestParseARTTrace(t *testing.T) {
	recs := [][3]uint32{
		{4321, 0x0, 1000}, {4321, 0x4, 1000}, {4321, 0x8, 1000},
		{4321, 0x8 | 1, 2000}, {4321, 0xc, 2000},
		{4321, 0xc | 1, 3000},
	}
	for _, size := range []int{14, 10} {
		header := artHeader
		if size == 10 {
			header = strings.Replace(header, "clock=dual", "clock=wall", 1)
		}
		tr, err := ParseARTTrace(artFile(header, 3, size, 7_000_000, recs))
		if err != nil {
			t.Fatal(err)
		}
		if tr.Version != 3 || tr.PID != 4321 || tr.StartUs != 7_000_000 || tr.Overflow || tr.Threads[4330] != "RenderThread" || len(tr.Methods) != 4 ||
			tr.Methods[0] != (ARTMethod{"android.os.Looper", "loop", "()V", "Looper.java"}) {
			t.Fatalf("header %+v", tr)
		}
		var got []string
		for _, s := range tr.Samples {
			if s.TID != 4321 || s.PID != 4321 || s.Thread != "main" {
				t.Errorf("sample %v", s)
			}
			got = append(got, FoldStack(s.Frames)+"@"+itoa64(s.TimeNs))
		}
		want := []string{
			"android.os.Looper.loop;android.os.Handler.dispatchMessage;com.x.Feed.bind@7001000000",
			"android.os.Looper.loop;android.os.Handler.dispatchMessage;com.x.Cache.decode@7002000000",
			"android.os.Looper.loop;android.os.Handler.dispatchMessage@7003000000",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("records of %d bytes: samples\n%s\nwant\n%s", size, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// Cut short inside the fourth record: the three whole ones count.
	b := artFile(artHeader, 3, 14, 7_000_000, recs)
	tr, err := ParseARTTrace(b[:len(b)-3*14-5])
	if err != nil || len(tr.Samples) != 1 {
		t.Errorf("truncated: %v, %d samples", err, len(tr.Samples))
	}
	// Thread metrics.CPU time alone gives no wall times: no samples.
	tr, err = ParseARTTrace(artFile(strings.Replace(artHeader, "clock=dual", "clock=thread-cpu", 1), 3, 10, 1, recs))
	if err != nil || len(tr.Samples) != 0 {
		t.Errorf("thread-cpu: %v %d", err, len(tr.Samples))
	}
	// An exit of a method entered before the trace began pops to it.
	tr, err = ParseARTTrace(artFile(artHeader, 3, 14, 0, [][3]uint32{{1, 0x0, 5}, {1, 0x4, 5}, {1, 0x0 | 1, 6}, {1, 0x8, 7}}))
	if err != nil || len(tr.Samples) != 2 || FoldStack(tr.Samples[1].Frames) != "com.x.Feed.bind" {
		t.Errorf("unbalanced: %v %+v", err, tr.Samples)
	}
}

func TestParseARTTraceErrors(t *testing.T) {
	good := artFile(artHeader, 3, 14, 1, nil)
	var pe *devtext.ParseError
	for _, tc := range []struct {
		in     []byte
		reason string
	}{
		{[]byte("SLOW\x03\x00"), "no *version"},
		{[]byte(strings.Replace(string(good), "*end\n", "", 1)), "no *version"},
		{[]byte(strings.Replace(string(good), "\n3\n", "\n5\n", 1)), "version 2 or 3"},
		{[]byte(strings.Replace(string(good), "4321\tmain", "main", 1)), "not a thread line"},
		{[]byte(strings.Replace(string(good), "0x4\tandroid.os.Handler", "zz\tandroid.os.Handler", 1)), "not a method line"},
		{[]byte(strings.Replace(string(good), "SLOW", "WOLS", 1)), `no "SLOW"`},
		{artFile(artHeader, 3, 12, 1, nil), "a data header ART does not write"},
	} {
		if _, err := ParseARTTrace(tc.in); !errors.As(err, &pe) || !strings.Contains(pe.Reason, tc.reason) {
			t.Errorf("%v, want a ParseError saying %q", err, tc.reason)
		}
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func FuzzParseARTTrace(f *testing.F) {
	f.Add(artFile(artHeader, 3, 14, 7, [][3]uint32{{4321, 0, 1}, {4321, 4, 1}, {4321, 5, 2}}))
	f.Add(artFile(strings.Replace(artHeader, "clock=dual", "clock=wall", 1), 2, 10, 7, [][3]uint32{{1, 8, 1}}))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := ParseARTTrace(in)
		if err != nil {
			return
		}
		for _, s := range tr.Samples {
			if len(s.Frames) == 0 || s.TimeNs < 0 {
				t.Fatalf("bad sample %v", s)
			}
		}
	})
}

func TestARTTraceResample(t *testing.T) {
	// Changes at 1, 2 and 3 ms (the trace ran 3.5 ms); sampled every
	// 250 µs, each stack holds until the next change.
	recs := [][3]uint32{
		{4321, 0x0, 1000}, {4321, 0x8, 1000},
		{4321, 0x8 | 1, 2000}, {4321, 0xc, 2000},
		{4321, 0xc | 1, 3000}, {4321, 0x0 | 1, 3000},
	}
	tr, err := ParseARTTrace(artFile(strings.Replace(artHeader, "elapsed-time-usec=3000", "elapsed-time-usec=3500", 1), 3, 14, 0, recs))
	if err != nil {
		t.Fatal(err)
	}
	if tr.ElapsedUs != 3500 || len(tr.Samples) != 2 {
		t.Fatalf("elapsed %d, %d samples", tr.ElapsedUs, len(tr.Samples))
	}
	count := map[string]int{}
	for _, s := range tr.Resample(250) {
		count[FoldStack(s.Frames)]++
	}
	if count["android.os.Looper.loop;com.x.Feed.bind"] != 4 || count["android.os.Looper.loop;com.x.Cache.decode"] != 4 || len(count) != 2 {
		t.Errorf("resampled %v", count)
	}
	if got := tr.Resample(0); len(got) != 2 {
		t.Errorf("no interval: %d samples", len(got))
	}
}
