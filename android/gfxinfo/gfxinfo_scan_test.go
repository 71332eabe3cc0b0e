package gfxinfo

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/capturegen"
)

// refRow is gfxFastRow's contract, the slow way: n comma-separated
// integers, a trailing comma allowed.
func refRow(ln string, n int) ([]int64, bool) {
	f := strings.Split(strings.TrimSuffix(ln, ","), ",")
	if len(f) != n {
		return nil, false
	}
	out := make([]int64, n)
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || strings.HasPrefix(s, "+") {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

func FuzzGfxFastRow(f *testing.F) {
	for _, s := range []string{
		"0,27432918,314856675367713,314856675367713,0,314856675797127,",
		"1,-2,3", "9223372036854775807,1,", "12345678,123456789012345678,1", ",,", "-,1,2", "1,2,3,4",
		"0,1234567890123456789,5", "00000000000000000001,2,3",
	} {
		f.Add(s, 3)
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, ln string, n int) {
		if n < 1 || n > 64 {
			return
		}
		got, ok := gfxFastRow([]byte(ln), nil, n)
		if !ok {
			return // the general path decides
		}
		want, wok := refRow(ln, n)
		if !wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("gfxFastRow(%q, %d) = %v, want %v (%v)", ln, n, got, want, wok)
		}
	})
}

// FuzzGfxRowFields: gfxRowFields takes the rows gfxFastRow takes, with
// its values in the columns asked for and 0 in the others.
func FuzzGfxRowFields(f *testing.F) {
	for _, s := range []string{
		"0,27432918,314856675367713,314856675367713,0,314856675797127,",
		"1,-2,3", "9223372036854775807,1,", "12345678,123456789012345678,1", ",,", "-,1,2", "1,2,3,4",
		"0,1234567890123456789,5", "00000000000000000001,2,3", "-12345678,87654321,-0,", "1,2,3,,", "123456781234567812,1,2",
	} {
		f.Add(s, 3, uint64(5))
		f.Add(s, 6, uint64(0x3f))
	}
	f.Fuzz(func(t *testing.T, ln string, n int, mask uint64) {
		if n < 1 || n > 64 {
			return
		}
		need := make([]bool, n)
		for i := range need {
			need[i] = mask>>i&1 == 1
		}
		want, wok := gfxFastRow([]byte(ln), nil, n)
		got, ok := gfxRowFields([]byte(ln), nil, n, need)
		if ok != wok {
			t.Fatalf("gfxRowFields(%q, %d) took it: %v, gfxFastRow: %v", ln, n, ok, wok)
		}
		if !ok {
			return
		}
		for i := range n {
			w := int64(0)
			if need[i] {
				w = want[i]
			}
			if got[i] != w {
				t.Fatalf("gfxRowFields(%q, %d, %v) = %v, want %d in column %d (gfxFastRow %v)", ln, n, need, got, w, i, want)
			}
		}
	})
}

// TestScanGfxInfoMatchesParse: the streamed reading of real captures and
// of a generated one gives the frames, rejections and period that
// Parse and FramesOf give.
func TestScanGfxInfoMatchesParse(t *testing.T) {
	inputs := capturegen.GfxInfoInputs(t)
	// Rows read in parts, as on several cores, with parts cut small
	// enough that the real captures' tables are read that way too, and
	// parts that run past a table's end.
	readers := map[string]func([]byte) (*ScanResult, error){
		"stream": func(t []byte) (*ScanResult, error) { return Scan(bytes.NewReader(t)) },
		"parts of a line": func(t []byte) (*ScanResult, error) {
			return scanGfxInfo(bytes.NewReader(t), gfxRowRuns{minRun: 1, maxParts: 5})
		},
		"parts of 997 B": func(t []byte) (*ScanResult, error) {
			return scanGfxInfo(bytes.NewReader(t), gfxRowRuns{minRun: 997, maxParts: 3})
		},
	}
	for name, text := range inputs {
		for rname, read := range readers {
			t.Run(name+"/"+rname, func(t *testing.T) {
				scanMatchesParse(t, text, read)
			})
		}
	}
}

func scanMatchesParse(t *testing.T, text []byte, read func([]byte) (*ScanResult, error)) {
	g, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := read(text)
	if err != nil {
		t.Fatal(err)
	}
	var tables []*Window
	for _, w := range g.Windows() {
		if w.Frames != nil {
			tables = append(tables, w)
		}
	}
	if len(sc.Windows) != len(tables) {
		t.Fatalf("%d windows, want %d", len(sc.Windows), len(tables))
	}
	for i, w := range tables {
		s := sc.Windows[i]
		frames, rejects := FramesOf(w.Frames, g.ClockNs())
		var want []FrameTimes
		for _, f := range frames {
			want = append(want, FrameTimes{f.IntendedVsync, f.FrameCompleted, f.FrameDeadline})
		}
		if s.Window.Label() != w.Label() || s.Rows != w.Frames.Len() || !reflect.DeepEqual(s.Frames, want) && len(want)+len(s.Frames) > 0 ||
			!reflect.DeepEqual(s.Rejected, rejects) || s.RefreshPeriod != w.Frames.RefreshPeriod() {
			t.Errorf("window %q: %d rows, %d frames, rejected %v, period %d; want %q %d rows, %d frames, %v, %d",
				s.Window.Label(), s.Rows, len(s.Frames), s.Rejected, s.RefreshPeriod, w.Label(), w.Frames.Len(), len(want), rejects, w.Frames.RefreshPeriod())
		}
	}
}

// FuzzScanGfxInfo: the streamed reading agrees with Parse on any
// input: the same error or none, and then the same frames per window.
func FuzzScanGfxInfo(f *testing.F) {
	var gen bytes.Buffer
	if err := (capturegen.Capture{Frames: 40, Hz: 120, JankEvery: 7, FlaggedEvery: 9}).GfxInfo(&gen); err != nil {
		f.Fatal(err)
	}
	f.Add(gen.Bytes())
	f.Add([]byte("Uptime: 5 Realtime: 6\n---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n0,1,2,\n0,3\n"))
	f.Add([]byte("Permission Denial: can't dump gfxinfo\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		g, perr := Parse(text)
		sc, serr := Scan(bytes.NewReader(text))
		// Rows read in parts as on several cores, cut small.
		pc, pcerr := scanGfxInfo(bytes.NewReader(text), gfxRowRuns{minRun: 1, maxParts: 4})
		if (perr == nil) != (serr == nil) || perr != nil && perr.Error() != serr.Error() ||
			(perr == nil) != (pcerr == nil) || perr != nil && perr.Error() != pcerr.Error() {
			t.Fatalf("ParseGfxInfo error %v, ScanGfxInfo error %v, in parts %v", perr, serr, pcerr)
		}
		if perr != nil {
			return
		}
		i := 0
		for _, w := range g.Windows() {
			if w.Frames == nil {
				continue
			}
			frames, rejects := FramesOf(w.Frames, g.ClockNs())
			for _, sc := range []*ScanResult{sc, pc} {
				s := sc.Windows[i]
				if len(s.Frames) != len(frames) || !reflect.DeepEqual(s.Rejected, rejects) || s.Rows != w.Frames.Len() {
					t.Fatalf("window %q: %d rows, %d frames %v, want %d, %d %v", w.Label(), s.Rows, len(s.Frames), s.Rejected, w.Frames.Len(), len(frames), rejects)
				}
			}
			i++
		}
		if i != len(sc.Windows) || i != len(pc.Windows) {
			t.Fatalf("%d and %d windows, want %d", len(sc.Windows), len(pc.Windows), i)
		}
	})
}

// TestMedianOfRuns: the median kept as runs of equal values is the one of
// the values sorted, on random values with and without repeats.
func TestMedianOfRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 1; n < 500; n += 1 + n/4 {
		for _, spread := range []int32{1, 3, 1000} {
			var runs []periodRun
			v := make([]int32, n)
			for i := range v {
				v[i] = 8_333_333 + rng.Int32N(spread)
				runs = addPeriods(runs, periodRun{v[i], 1})
			}
			slices.Sort(v)
			if got, want := medianOfRuns(runs), int64(v[n/2]); got != want {
				t.Fatalf("%d values (spread %d): %d, want %d", n, spread, got, want)
			}
		}
	}
	if got := medianOfRuns(nil); got != 0 {
		t.Errorf("no values: %d", got)
	}
}

// TestRowRunsTakeWideRows: rows the word-at-a-time reading leaves to the
// common path (a 19-digit INT64_MAX vsync id, spaces around a value) are
// read in the run with the others, on every core: a run stopped at each
// such row, and the rows after it were read again, one by one, after
// the buffer's whole text was moved (a capture with one in three rows so
// took 16 s instead of 1).
func TestRowRunsTakeWideRows(t *testing.T) {
	text := capturegen.Shape{Frames: 3000, Hz: 120, Wide: true, Irregular: true, Rejects: 0.05, Seed: 5}.Bytes("gfxinfo")
	_, rest, _ := bytes.Cut(text, []byte("---PROFILEDATA---\n"))
	header, rest, _ := bytes.Cut(rest, []byte("\n"))
	rows, _, _ := bytes.Cut(rest, []byte("---PROFILEDATA---"))
	rows = bytes.Replace(rows, []byte("\n0,"), []byte("\n 0 , "), 50)
	want := bytes.Count(rows, []byte("\n"))
	if wide := bytes.Count(rows, []byte(",9223372036854775807,")); wide < want/5 {
		t.Fatalf("%d rows of %d hold INT64_MAX: the capture is not the one meant", wide, want)
	}
	tb := &FrameTable{}
	if err := (&gfxParser{}).header(tb, string(header), 1); err != nil {
		t.Fatal(err)
	}
	rr := gfxRowRuns{minRun: 1, maxParts: 4}
	w := &ScanWindow{}
	size := int64(0)
	took, lines := rr.take(w, tb, rows, &size)
	if took != len(rows) || lines != want || w.acc.rows != want {
		t.Fatalf("took %d bytes, %d lines, %d rows of %d bytes, %d rows", took, lines, w.acc.rows, len(rows), want)
	}
}
