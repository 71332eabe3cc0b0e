package trace_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// packetEnds lists where each top-level packet of a trace ends, by the
// independent walk.
func packetEnds(data []byte) []int {
	var ends []int
	for i := 0; i < len(data); {
		_, j := wvarint(data, i)
		n, k := wvarint(data, j)
		i = k + int(n)
		ends = append(ends, i)
	}
	return ends
}

// TestTruncatedTrace cuts the real trace at many places: each cut gives the
// analysis of every whole packet before it and an error at the cut packet.
func TestTruncatedTrace(t *testing.T) {
	parallel(t)
	data, err := os.ReadFile(fixtures.Path(t, nowInAndroid))
	if err != nil {
		t.Fatal(err)
	}
	ends := packetEnds(data)
	cuts := []int{1, 2, 3, ends[0] - 1, ends[0] + 1, ends[0] + 2}
	for i := 1; i < 40; i++ {
		cuts = append(cuts, len(data)*i/40)
	}
	for _, cut := range cuts {
		whole, lastEnd := 0, 0
		for _, e := range ends {
			if e <= cut {
				whole, lastEnd = whole+1, e
			}
		}
		a, err := trace.Analyze(bytes.NewReader(data[:cut]), trace.Options{})
		var fe *trace.FormatError
		if cut == lastEnd {
			continue // a cut between packets is a shorter trace
		}
		if !errors.As(err, &fe) || !strings.Contains(fe.Msg, "truncated") || fe.Offset != int64(lastEnd) {
			t.Errorf("cut at %d: err %v, want a truncation at offset %d", cut, err, lastEnd)
			continue
		}
		if a == nil || a.Packets != whole {
			t.Errorf("cut at %d: %v packets analysed, want %d", cut, a, whole)
		}
		if whole > 0 && !strings.Contains(strings.Join(a.Notes, " "), "the file breaks") {
			t.Errorf("cut at %d: notes %q do not say the file broke", cut, a.Notes)
		}
	}
}

// TestForeignFile: what is not a trace says so, with the offset.
func TestForeignFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "offset 0: not a Perfetto trace: no TracePacket"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "offset 0: not a Perfetto trace: it starts with 89 50 4e 47 0d 0a 1a 0a, a trace with 0a"},
		{"text", []byte("hello, world\n"), "offset 0: not a Perfetto trace: it starts with 68 65 6c 6c 6f 2c 20 77,"},
		{"end group", []byte{0x0c}, "offset 0: not a Perfetto trace: it starts with 0c,"},
		{"later end group", []byte{0x0a, 0x00, 0x0c}, "offset 2: Trace.packet(1): not a Perfetto trace: wire type 4"},
		{"later field 0", []byte{0x0a, 0x00, 0x02, 0x00}, "offset 2: not a Perfetto trace: tag 0x2 has field number 0"},
		{"huge length", append([]byte{0x0a}, protowire.AppendVarint(nil, 1<<40)...), "length 1099511627776 is over the 67108864-byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trace.Analyze(bytes.NewReader(tc.data), trace.Options{})
			var fe *trace.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a FormatError containing %q", err, tc.want)
			}
		})
	}
}

// TestGzipTrace: a gzipped trace reads like the trace.
func TestGzipTrace(t *testing.T) {
	data, _ := genTrace(t, genOpts{frames: 30, cpus: 2, noiseGap: 80_000, seed: 4, truth: true})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	plain, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	zipped, err := trace.Analyze(&gz, trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain.Janky, zipped.Janky) || plain.Packets != zipped.Packets || len(plain.Janky) == 0 {
		t.Errorf("gzipped trace: %d packets, %d janky frames; plain %d, %d", zipped.Packets, len(zipped.Janky), plain.Packets, len(plain.Janky))
	}
}

// TestCompressedPackets: packets in zlib batches (compressed_packets, as
// perfetto writes with compress_from_cli) read like the same packets plain.
func TestCompressedPackets(t *testing.T) {
	parallel(t)
	data, _ := genTrace(t, genOpts{frames: 40, cpus: 2, noiseGap: 80_000, seed: 5, truth: true})
	ends := packetEnds(data)
	var out bytes.Buffer
	w := tracewriter.New(&out)
	start := 0
	for i := 0; i < len(ends); i += 25 {
		stop := ends[min(i+24, len(ends)-1)]
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(data[start:stop])
		zw.Close()
		w.Raw(protowire.AppendBytes(protowire.AppendTag(nil, 50, protowire.BytesType), z.Bytes()))
		start = stop
	}
	plain, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	batched, err := trace.Analyze(&out, trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain.Janky, batched.Janky) || !reflect.DeepEqual(plain.Frames, batched.Frames) || batched.Packets != plain.Packets || len(plain.Janky) == 0 {
		t.Errorf("batched: %d packets, %d frames, %d janky; plain %d, %d, %d", batched.Packets, len(batched.Frames), len(batched.Janky), plain.Packets, len(plain.Frames), len(plain.Janky))
	}
	if !strings.Contains(strings.Join(batched.Notes, " "), fmt.Sprintf("%d packets came out of compressed batches", plain.Packets)) {
		t.Errorf("notes %q", batched.Notes)
	}
}

// TestMalformedPacket: a packet broken inside is skipped, counted, and named
// by offset and field; the packets around it still count.
func TestMalformedPacket(t *testing.T) {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1000, trace.Monotonic: 500})
	w.ActualSurfaceFrame(2000, tracewriter.SurfaceFrame{Cookie: 1, Token: 5, PID: 42, Layer: "TX - a.b/a.b.C#0", Jank: trace.JankAppDeadlineMissed, Present: trace.PresentLate})
	at := buf.Len()
	// A frame_timeline_event whose actual_surface_frame_start's jank_type
	// varint never ends.
	inner := []byte{0x48, 0xff, 0xff}                                                                  // jank_type(9): a varint cut short
	ft := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), inner)               // actual_surface_frame_start(4)
	pkt := protowire.AppendBytes(protowire.AppendTag([]byte{0x40, 0x01}, 76, protowire.BytesType), ft) // timestamp(8)=1, frame_timeline_event(76)
	w.Raw(pkt)
	w.FrameEnd(30_000_000, 1)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	a, err := trace.Analyze(&buf, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The bad varint sits after the packet's tag and length (2 bytes), its
	// timestamp (2), field 76's tag (2) and length (1), field 4's tag and
	// length (2).
	wantOff := at + 2 + 2 + 2 + 1 + 2
	want := fmt.Sprintf("trace: offset %d: TracePacket.frame_timeline_event(76).actual_surface_frame_start(4).jank_type(9): ", wantOff)
	if a.Rejected["packet_malformed"] != 1 || !strings.Contains(strings.Join(a.Notes, " "), want) {
		t.Errorf("rejected %v notes %q; want one malformed packet named %q", a.Rejected, a.Notes, want)
	}
	if len(a.Frames) != 1 || a.Frames[0].End-a.Frames[0].Start != 30_000_000-2000 {
		t.Errorf("frames %+v, want the one around the broken packet", a.Frames)
	}
}

// TestSchedQuirks: data loss breaks the compact chain (the task leaving
// after the loss is not known, so no state is made up for it), a CPU whose
// time goes backwards is not believed, and a bundle on another ftrace clock
// is moved onto boottime by its own pair of readings.
func TestSchedQuirks(t *testing.T) {
	const main, other = 300, 301
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1_000_000, trace.Monotonic: 500_000})
	w.ProcessTree(1_000_000, []tracewriter.Process{{PID: main, Cmdline: "a.b"}}, nil)
	sw := func(ts int64, state int64, next int32) tracewriter.CompactSwitch {
		return tracewriter.CompactSwitch{Ts: ts, PrevState: state, NextPID: next, NextComm: "x"}
	}
	// CPU 0: main runs 10..20 ms, sleeps; events lost; then a switch at 30 ms
	// whose leaving task is unknown, and main runs again from 40 ms.
	w.Ftrace(tracewriter.Bundle{CPU: 0, Compact: &tracewriter.CompactSched{Switches: []tracewriter.CompactSwitch{
		sw(10_000_000, 0, main), sw(20_000_000, 1, other)}}})
	w.Ftrace(tracewriter.Bundle{CPU: 0, LostEvents: true, Compact: &tracewriter.CompactSched{Switches: []tracewriter.CompactSwitch{
		sw(30_000_000, 2, other), sw(40_000_000, 0, main)}}})
	// CPU 1 on the global clock, 5 ms behind boottime: main leaves CPU 1
	// (it never ran there as far as the trace knows) in D at 50 ms boottime.
	w.Ftrace(tracewriter.Bundle{CPU: 1, FtraceClock: 2, FtraceTs: 100_000_000, BootTs: 105_000_000, Events: []tracewriter.Event{
		{Ts: 45_000_000, PID: main, Switch: &tracewriter.SchedSwitch{PrevPID: main, PrevState: 2, NextPID: other}},
		// Time going backwards on the same CPU: not a time.
		{Ts: 44_000_000, PID: other, Waking: &tracewriter.SchedWaking{PID: main}},
	}})
	w.ActualSurfaceFrame(5_000_000, tracewriter.SurfaceFrame{Cookie: 1, Token: 1, PID: main, Layer: "TX - a.b/a.b.Main#0", Jank: trace.JankAppDeadlineMissed})
	w.FrameEnd(60_000_000, 1)
	a, err := trace.Analyze(&buf, trace.Options{Package: "a.b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Janky) != 1 || a.Janky[0].MainThread == nil {
		t.Fatalf("janky = %+v", a.Janky)
	}
	got := *a.Janky[0].MainThread
	want := trace.States{
		UnknownNs:         5_000_000,               // 5..10 ms: before any event
		RunningNs:         10_000_000 + 10_000_000, // 10..20, 40..50
		SleepingNs:        20_000_000,              // 20..40: the switch at 30 ms says nothing of main
		UninterruptibleNs: 10_000_000,              // 50..60
	}
	if got != want {
		t.Errorf("states %+v, want %+v", got, want)
	}
	if a.Rejected["sched_time_backwards"] != 1 {
		t.Errorf("rejected %v, want one sched_time_backwards", a.Rejected)
	}
	if !strings.Contains(strings.Join(a.Notes, " "), "data was lost") {
		t.Errorf("notes %q do not mention the loss", a.Notes)
	}
}

// TestTrackEventNames: TrackEvent slices named inline or by interned iid,
// on a thread's track; an iid the sequence never interned is named as such
// and counted.
func TestTrackEventNames(t *testing.T) {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1_000_000, trace.Monotonic: 500_000})
	w.ThreadTrack(9, 300, 300, "main")
	w.InternNames(map[uint64]string{1: "interned"})
	w.SliceBegin(2_000_000, 9, "Choreographer#doFrame 7", 0)
	w.SliceBegin(3_000_000, 9, "", 1)
	w.SliceEnd(9_000_000, 9)
	w.SliceBegin(9_500_000, 9, "", 2)
	w.SliceEnd(9_600_000, 9)
	w.SliceEnd(10_000_000, 9)
	w.ActualSurfaceFrame(2_000_000, tracewriter.SurfaceFrame{Cookie: 1, Token: 7, PID: 300, Layer: "l", Jank: trace.JankUnknown})
	w.FrameEnd(20_000_000, 1)
	a, err := trace.Analyze(&buf, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Janky) != 1 {
		t.Fatalf("janky = %+v", a.Janky)
	}
	jf := a.Janky[0]
	got := fmt.Sprint(jf.SlicesFrom, jf.Slices)
	want := "Choreographer#doFrame 7[{interned 300 3000000 9000000 1} {[unknown name iid 2] 300 9500000 9600000 1}]"
	if got != want || a.Rejected["track_event_unknown_name"] != 1 || jf.App {
		t.Errorf("got %s (app %v, rejected %v), want %s", got, jf.App, a.Rejected, want)
	}
}

// TestSequenceClock: TrackEvent times on a clock the packet sequence
// defines for itself, incremental and in µs (as the Perfetto SDK writes
// them), land on boottime through that sequence's clock snapshot.
func TestSequenceClock(t *testing.T) {
	v := func(b []byte, num protowire.Number, x uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), x)
	}
	m := func(b []byte, num protowire.Number, inner []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), inner)
	}
	s := func(b []byte, num protowire.Number, x string) []byte { return m(b, num, []byte(x)) }
	const seq, track = 7, 3
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	// Clock 64 reads 1000 µs when boottime reads 1 s.
	var snap []byte
	snap = m(snap, 1, v(v(nil, 1, 6), 2, 1_000_000_000))
	snap = m(snap, 1, v(v(v(v(nil, 1, 64), 2, 1000), 3, 1), 4, 1000))
	w.Raw(m(v(nil, 10, seq), 6, snap))
	w.Raw(m(v(nil, 10, seq), 60, m(v(nil, 1, track), 4, v(v(nil, 1, 300), 2, 300))))
	event := func(delta uint64, typ uint64, name string) {
		te := v(v(nil, 9, typ), 11, track)
		if name != "" {
			te = s(te, 23, name)
		}
		w.Raw(m(v(v(v(nil, 8, delta), 58, 64), 10, seq), 11, te))
	}
	event(5, 1, "Choreographer#doFrame 5") // 1005 µs: boottime 1.000005 s
	event(2, 1, "measure")                 // 1007 µs
	event(4, 2, "")                        // 1011 µs
	event(4, 2, "")                        // 1015 µs
	w.ActualSurfaceFrame(1_000_000_000, tracewriter.SurfaceFrame{Cookie: 1, Token: 5, PID: 300, Layer: "l", Jank: trace.JankAppDeadlineMissed})
	w.FrameEnd(1_000_020_000, 1)
	a, err := trace.Analyze(&buf, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Janky) != 1 {
		t.Fatalf("janky %+v, rejected %v", a.Janky, a.Rejected)
	}
	got := fmt.Sprint(a.Janky[0].SlicesFrom, a.Janky[0].Slices)
	if want := "Choreographer#doFrame 5[{measure 300 1000007000 1000011000 1}]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestReaderSmallPacketsNoCopy: reading a trace of small packets allocates
// nothing per packet (no copy, no field name formatted in advance).
func TestReaderSmallPacketsNoCopy(t *testing.T) {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	const n = 2000
	for i := range n {
		w.FrameEnd(int64(1000+i), int64(i))
	}
	data := buf.Bytes()
	allocs := testing.AllocsPerRun(3, func() {
		r := trace.NewReader(bytes.NewReader(data))
		for k := 0; ; k++ {
			if _, err := r.Next(); err != nil {
				if k != n {
					t.Fatalf("%d packets, then %v", k, err)
				}
				return
			}
		}
	})
	if allocs > n/10 {
		t.Errorf("reading %d packets allocated %.0f times", n, allocs)
	}
}
