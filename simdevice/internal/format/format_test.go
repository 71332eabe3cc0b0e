package format

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// column returns the values of a PROFILEDATA block's column name, one per
// row, found by the header's names as a parser must.
func column(t *testing.T, block, name string) []int64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(block), "\n")
	idx := -1
	for i, h := range strings.Split(lines[0], ",") {
		if h == name {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("no column %s in %q", name, lines[0])
	}
	var out []int64
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(strings.Split(lines[0], ",")) {
			t.Fatalf("row %q has %d fields, the header %d", l, len(f), len(strings.Split(lines[0], ",")))
		}
		v, err := strconv.ParseInt(f[idx], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// Every API's row has as many fields as its header, and each value sits
// under its own label, the API 31+ label swap included.
func TestProfileRowUnderItsHeader(t *testing.T) {
	r := ProfileRow{Flags: 0, VsyncID: 77, IntendedVsync: 1_000_000_000, Vsync: 1_000_100_000, HandleInputStart: 1_000_200_000,
		Deadline: 1_033_000_000, SyncQueued: 1_004_000_000, SwapBuffers: 1_008_000_000, Completed: 1_012_000_000,
		GpuCompleted: 1_011_000_000, Present: 1_020_000_000}
	const period = 16_666_667
	for _, tc := range []struct {
		api  int
		want map[string]int64
	}{
		{28, map[string]int64{"IntendedVsync": r.IntendedVsync, "FrameCompleted": r.Completed, "OldestInputEvent": math.MaxInt64, "SwapBuffers": r.SwapBuffers}},
		{30, map[string]int64{"IntendedVsync": r.IntendedVsync, "FrameCompleted": r.Completed, "GpuCompleted": r.GpuCompleted}},
		{33, map[string]int64{"FrameTimelineVsyncId": 77, "IntendedVsync": r.IntendedVsync, "FrameDeadline": r.Deadline, "FrameCompleted": r.Completed,
			"GpuCompleted": r.GpuCompleted, "DisplayPresentTime": r.Present, "FrameStartTime": period, "FrameInterval": r.HandleInputStart - 3000}},
	} {
		var b strings.Builder
		b.WriteString(ProfileHeader(tc.api) + "\n")
		writeProfileRow(&b, tc.api, period, r)
		for name, want := range tc.want {
			if got := column(t, b.String(), name); len(got) != 1 || got[0] != want {
				t.Errorf("API %d: %s = %v, want %d", tc.api, name, got, want)
			}
		}
	}
}

// hwui's percentiles are bucket bounds: of 10 frames, 9 of 6 ms and one of
// 40 ms, the 50th and 90th percentiles are the 6 ms bucket, the 95th and
// 99th the 40 ms one; API 31+ adds the legacy count and GPU percentiles.
func TestGfxStatsBlock(t *testing.T) {
	durs := make([]int64, 10)
	for i := range durs {
		durs[i] = 5_500_000
	}
	durs[9] = 39_200_000
	g := GfxStats{Since: 42, Durations: durs, GPU: []int64{1_500_000}, Missed: 1, Legacy: 2, SlowUI: 1}
	for _, tc := range []struct {
		api  int
		want []string
		not  []string
	}{
		{28, []string{"Stats since: 42ns\n", "Total frames rendered: 10\n", "Janky frames: 1 (10.00%)\n", "50th percentile: 6ms\n", "90th percentile: 6ms\n",
			"95th percentile: 40ms\n", "99th percentile: 40ms\n", "Number Slow UI thread: 1\n", " 6ms=9 ", " 40ms=1 "}, []string{"legacy", "GPU"}},
		{33, []string{"Janky frames (legacy): 2 (20.00%)\n", "Number Frame deadline missed (legacy): 2\n", "50th gpu percentile: 2ms\n", "GPU HISTOGRAM: 1ms=0 2ms=1 "}, nil},
	} {
		var b strings.Builder
		writeGfxStats(&b, tc.api, g)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("API %d: no %q in\n%s", tc.api, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("API %d: %q in\n%s", tc.api, w, b.String())
			}
		}
	}
}

// The TOTAL row adds the category rows up, and the App Summary's rows are
// the given sizes, with Private Other and System what the rows leave.
func TestMeminfoTotals(t *testing.T) {
	m := Meminfo{API: 34, Pid: 4242, Package: "com.example", Java: 1000, Native: 2000, Code: 300, Graphics: 400, Rows: []MemRow{
		{Name: "Native Heap", Pss: 2000, PrivDirty: 2000, Rss: 2100, Heap: true, HeapSize: 3000, HeapAlloc: 2500, HeapFree: 500},
		{Name: "Dalvik Heap", Pss: 900, PrivDirty: 900, Rss: 950, Heap: true, HeapSize: 1300, HeapAlloc: 900, HeapFree: 400},
		{Name: "Stack", Pss: 50, PrivDirty: 50, Rss: 50},
		{Name: ".so mmap", Pss: 500, PrivClean: 300, Rss: 700},
		{Name: ".art mmap", Pss: 100, PrivDirty: 100, Rss: 120},
		{Name: "GL mtrack", Pss: 400, PrivDirty: 400, Rss: 400},
	}}
	var b strings.Builder
	WriteMeminfo(&b, m)
	out := b.String()
	for _, want := range []string{
		"** MEMINFO in pid 4242 [com.example] **\n",
		"        TOTAL     3950     3450      300        0     4320     4300     3400      900\n",
		"           Java Heap:     1000                           1070\n",
		"                Code:      300                            700\n",
		"               Stack:       50                             50\n",
		"       Private Other:        0\n",
		"              System:      200\n",
		"           TOTAL PSS:     3950            TOTAL RSS:     4320       TOTAL SWAP PSS:        0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	m.API = 28
	b.Reset()
	WriteMeminfo(&b, m)
	if !strings.Contains(b.String(), "               TOTAL:     3950      TOTAL SWAP (KB):        0\n") || strings.Contains(b.String(), "Rss") {
		t.Errorf("API 28 layout:\n%s", b.String())
	}
}

func TestSmallFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{commaK(389172), "389,172"},
		{commaK(12), "12"},
		{commaK(1234567), "1,234,567"},
		{javaFloat(60), "60.0"},
		{javaFloat(120.00001), "120.00001"},
		{CPUList(1), "0\n"},
		{CPUList(8), "0-7\n"},
		{Comm("cn.hikyson.android.godeye.sample"), "d.godeye.sample"},
		{Comm("surfaceflinger"), "surfaceflinger"},
		{AppLayer(30, "p/p.Main"), "p/p.Main#0"},
		{AppLayer(33, "p/p.Main"), "SurfaceView[p/p.Main](BLAST)#0"},
		{LogLine(LogFormat{Format: "threadtime"}, time.Date(2026, 4, 1, 1, 55, 1, 573_900_000, time.UTC), 12, 34, 'I', "Choreographer", "Skipped 79 frames!"),
			"04-01 01:55:01.573    12    34 I Choreographer: Skipped 79 frames!\n"},
		{LogLine(LogFormat{Format: "time", Epoch: true, Usec: true}, time.Unix(1700000000, 1_234_567), 7, 7, 'W', "ActivityManager", "x"),
			"         1700000000.001234 W/ActivityManager(    7): x\n"},
		{LogLine(LogFormat{Format: "brief"}, time.Unix(0, 0), 1, 1, 'E', "t", "m"), "E/t       (    1): m\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// A tracker's slots print oldest first, one A B C line each, under the
// period.
func TestWriteLatency(t *testing.T) {
	var b strings.Builder
	WriteLatency(&b, 8_333_333, [][3]int64{{0, 0, 0}, {1, math.MaxInt64, 3}})
	if want := "8333333\n0\t0\t0\n1\t9223372036854775807\t3\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
