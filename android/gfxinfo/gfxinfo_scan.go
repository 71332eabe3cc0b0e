package gfxinfo

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"github.com/perfgate/perfgate/android/devtext"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// FrameTimes is what the frame metrics read of one gfxinfo row.
type FrameTimes struct {
	IntendedVsync, FrameCompleted, FrameDeadline int64
}

// ScanResult is a gfxinfo capture read as a stream by Scan.
type ScanResult struct {
	// Info is the dump without its rows: clocks, processes, windows and
	// their statistics; each window's Frames table holds its header only.
	Info *Info
	// Windows are the windows with a PROFILEDATA block, in output order.
	Windows []*ScanWindow
}

// ScanWindow is one window's PROFILEDATA block, reduced to what the
// frame metrics read.
type ScanWindow struct {
	Window *Window
	// Rows is the number of rows read.
	Rows int
	// Frames are the rows Judge keeps at the dump's clock, in
	// output order; Rejected counts the others by reason.
	Frames   []FrameTimes
	Rejected Rejects
	// RefreshPeriod is FrameTable.RefreshPeriod of the block.
	RefreshPeriod int64

	acc gfxRowAcc
	// Rows fill blocks of frames, so a long capture is never copied as it
	// grows.
	blocks [][]FrameTimes
}

// gfxRowAcc is what a run of one window's rows adds up to.
type gfxRowAcc struct {
	rows, flagged  int
	swapped, plain int
	// periods are the period-like values under FrameInterval and
	// FrameStartTime (at most 1 s: they fit 32 bits), in runs of equal
	// values: a display's period repeats row after row.
	periods [2][]periodRun
	// frames are the rows of Flags 0, in output order.
	frames []FrameTimes
}

// scanBlock is the number of frames in one block of a window's rows.
const scanBlock = 1 << 14

// Scan reads `dumpsys gfxinfo … framestats` from r as Parse
// does, with the same errors, but holds no row: each window keeps per frame
// only its IntendedVsync, FrameCompleted and FrameDeadline, so an hour of
// frames (432,000 at 120 Hz, over 100 MB of text) is read in one pass in
// little memory. UTF-16 text, and text with carriage returns, is decoded
// as it is read (as Normalize turns it); a line longer than devtext.MaxLine ends
// the reading with an error (devtext.ErrLineTooLong) before it is held, and the
// legacy "Profile data in ms" tables keep their columns, not their rows.
func Scan(r io.Reader) (*ScanResult, error) {
	return scanGfxInfo(r, gfxRowRuns{minRun: gfxRowRunMin, maxParts: gfxRowParts(runtime.GOMAXPROCS(0))})
}

// gfxRowParts is how many parts a run of rows is cut into on procs cores:
// none on one, else four per core, at most 16. More parts than cores keep
// every core busy to the end of a run when one core is slower than the
// others, as a shared machine's often is: with one part per core the run
// waited for the slowest (frames.BenchmarkScanHour on 2 cores, ten runs or more
// each: median 108 ms with 2 parts, 80 ms with 8).
func gfxRowParts(procs int) int {
	if procs <= 1 {
		return 1
	}
	return min(4*procs, 16)
}

// scanGfxInfo is Scan with rows read as rr says.
func scanGfxInfo(r io.Reader, rr gfxRowRuns) (*ScanResult, error) {
	br := bufio.NewReaderSize(r, devtext.ScanBuffer)
	head, err := br.Peek(1 << 16)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	sc := &ScanResult{}
	p := gfxParser{g: &Info{}}
	byTable := map[*FrameTable]*ScanWindow{}
	var cur *FrameTable
	var w *ScanWindow
	window := func(t *FrameTable) *ScanWindow {
		if t != cur {
			cur, w = t, byTable[t]
			if w == nil {
				w = &ScanWindow{}
				byTable[t] = w
			}
		}
		return w
	}
	// A reader that knows its size lets the first window whose rows are
	// read in runs reserve room for as many rows as the rest of the
	// capture holds at their length, so an hour of frames is written
	// once, not into blocks copied at the end.
	size := devtext.ReaderSize(r)
	p.rowFn = func(t *FrameTable, row []int64) {
		w := window(t)
		w.room(0)
		w.acc.take(t.idx, row)
	}
	if rr.maxParts > 1 {
		p.rowRunMin = max(1, rr.minRun)
		p.rowsFn = func(t *FrameTable, text []byte) (int, int) {
			return rr.take(window(t), t, text, &size)
		}
	}
	switch {
	case len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) || bytes.IndexByte(head, '\r') >= 0:
		// Decoded as it is read, as Normalize turns it.
		br = bufio.NewReaderSize(devtext.NewNormReader(devtext.Unbuffered(br, r)), devtext.ScanBuffer)
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
	}
	if err := p.stream(br); err != nil {
		return nil, err
	}
	g, err := p.result()
	if err != nil {
		return nil, err
	}
	sc.Info = g
	clock := g.ClockNs()
	for _, win := range g.Windows() {
		if win.Frames == nil {
			continue
		}
		w := byTable[win.Frames]
		if w == nil {
			w = &ScanWindow{}
		}
		w.Window = win
		w.finish(clock)
		sc.Windows = append(sc.Windows, w)
	}
	return sc, nil
}

// stream feeds the parser r's lines, as run does a byte slice's.
func (p *gfxParser) stream(br *bufio.Reader) error {
	var long []byte
	lineNo, first := 0, true
	for {
		if p.rowsFn != nil && long == nil && !first && p.inRows() {
			// A table's rows, as many whole lines as the buffer holds,
			// read at once (gfxRowRuns); the line that ends them, and
			// any row the fast path does not take, go the common way.
			buf, _ := br.Peek(devtext.ScanBuffer)
			if i := bytes.LastIndexByte(buf, '\n'); i >= p.rowRunMin && gfxRowStart(buf) {
				n, lines := p.rowsFn(p.table, buf[:i+1])
				br.Discard(n)
				lineNo += lines
				if n == i+1 {
					continue // all rows: the next run
				}
			}
		}
		ln, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(ln) > devtext.MaxLine {
				return devtext.LineTooLong(Source, lineNo+1, append(long, ln[:min(len(ln), devtext.LineStartKept)]...))
			}
			long = append(long, ln...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if long != nil {
			ln = append(long, ln...)
			long = nil
		}
		if len(ln) == 0 && err != nil {
			break
		}
		ln = bytes.TrimSuffix(ln, []byte("\n"))
		lineNo++
		if len(ln) > devtext.MaxLine {
			return devtext.LineTooLong(Source, lineNo, ln)
		}
		if first && len(bytes.TrimSpace(ln)) > 0 {
			first = false
			if rerr := gfxRefused(ln); rerr != nil {
				return rerr
			}
		}
		if perr := p.line(ln, lineNo); perr != nil {
			return perr
		}
		if err != nil {
			break
		}
	}
	return p.end()
}

// gfxRowStart reports whether text starts as a row does: a digit, or a
// minus sign and a digit.
func gfxRowStart(text []byte) bool {
	if len(text) > 1 && text[0] == '-' {
		text = text[1:]
	}
	return len(text) > 0 && text[0]-'0' <= 9
}

// take keeps what the metrics read of one row.
func (a *gfxRowAcc) take(idx gfxColumns, row []int64) {
	a.rows++
	if row[idx.flags] != 0 {
		a.flagged++ // the rule's first check: nothing can change it
	} else {
		f := FrameTimes{IntendedVsync: row[idx.intended], FrameCompleted: row[idx.completed]}
		if idx.deadline >= 0 {
			f.FrameDeadline = row[idx.deadline]
		}
		a.frames = append(a.frames, f)
	}
	if idx.interval < 0 {
		return
	}
	iv := row[idx.interval]
	if gfxPeriodLike(iv) {
		a.periods[0] = addPeriods(a.periods[0], periodRun{int32(iv), 1})
	}
	if idx.start < 0 {
		return
	}
	// As endTable: which of the two columns holds the period is decided
	// by magnitude over the whole block.
	st := row[idx.start]
	switch {
	case gfxPeriodLike(st) && iv > st:
		a.swapped++
	case gfxPeriodLike(iv) && st > iv:
		a.plain++
	}
	if gfxPeriodLike(st) {
		a.periods[1] = addPeriods(a.periods[1], periodRun{int32(st), 1})
	}
}

// room makes room for one more frame in the window's frames: a full
// block goes to blocks, and the next holds scanBlock frames, or rows if
// more.
func (w *ScanWindow) room(rows int) {
	if len(w.acc.frames) < cap(w.acc.frames) {
		return
	}
	if len(w.acc.frames) > 0 {
		w.blocks = append(w.blocks, w.acc.frames)
	}
	w.acc.frames = make([]FrameTimes, 0, max(scanBlock, rows))
}

// flush moves the window's last frames into blocks.
func (w *ScanWindow) flush() {
	if len(w.acc.frames) > 0 {
		w.blocks = append(w.blocks, w.acc.frames)
	}
	w.acc.frames = nil
}

// add appends a run of the window's rows read apart (gfxRowRuns).
func (w *ScanWindow) add(a *gfxRowAcc, rows int) {
	w.acc.rows += a.rows
	w.acc.flagged += a.flagged
	w.acc.swapped += a.swapped
	w.acc.plain += a.plain
	for i := range a.periods {
		for _, r := range a.periods[i] {
			w.acc.periods[i] = addPeriods(w.acc.periods[i], r)
		}
	}
	for f := a.frames; len(f) > 0; {
		w.room(rows)
		k := min(len(f), cap(w.acc.frames)-len(w.acc.frames))
		w.acc.frames = append(w.acc.frames, f[:k]...)
		f = f[k:]
	}
}

// gfxRowRunMin is the least text of whole lines worth reading as a run of
// rows on several cores.
const gfxRowRunMin = 64 << 10

// gfxRowRuns reads the rows of a long PROFILEDATA block on several cores:
// the text is cut at line ends into parts (gfxRowParts), each part read as
// rows until its first line that is not a plain row (gfxFastRow), and the
// parts added to the window in order up to the first part that stopped
// early. The line that stopped it, and all after, are left to the common
// path, so the result is the line-by-line one; a part read past a table's
// end is thrown away.
type gfxRowRuns struct {
	// minRun is the least text a part is given; maxParts the most parts
	// a text is cut into.
	minRun, maxParts int
	parts            []gfxRowPart
	need             []bool // the columns gfxRowAcc.take reads
}

type gfxRowPart struct {
	text         []byte
	acc          gfxRowAcc
	scratch      []int64
	bytes, lines int
	whole        bool // every line of text was a row
}

// gfxRowFields is gfxFastRow reading only the values of the columns need
// marks: it takes and refuses the same rows, and the other columns' values
// are 0. Digits are checked, and needed values read, eight at a time.
func gfxRowFields(ln []byte, dst []int64, n int, need []bool) ([]int64, bool) {
	i := 0
	for col := 0; col < n; col++ {
		neg := i < len(ln) && ln[i] == '-'
		if neg {
			i++
		}
		start := i
		var v uint64
		// Eight bytes at a time: whole words of digits, then the digits
		// that start the next word, the first non-digit found exactly by
		// devtext.NonDigits8; the last bytes of the line one at a time.
		for i+8 <= len(ln) {
			w := binary.LittleEndian.Uint64(ln[i:])
			m := devtext.NonDigits8(w)
			if m == 0 {
				if need[col] {
					v = v*100_000_000 + devtext.Value8(w)
				}
				i += 8
				continue
			}
			k := bits.TrailingZeros64(m) / 8 // digits before the first non-digit
			if k > 0 && need[col] {
				// The k digits moved to the word's end, '0's before them.
				sh := uint(8 * (8 - k))
				v = v*devtext.Pow10[k] + devtext.Value8(w<<sh|0x3030303030303030>>uint(8*k))
			}
			i += k
			goto end
		}
		for i < len(ln) {
			d := ln[i] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
			i++
		}
	end:
		if digits := i - start; digits == 0 || digits > 19 || digits == 19 && string(ln[start:i]) > maxInt64Text {
			return dst, false
		}
		x := int64(v)
		switch {
		case !need[col]:
			x = 0
		case neg:
			x = -x
		}
		dst = append(dst, x)
		if i == len(ln) {
			break
		}
		if ln[i] != ',' {
			return dst, false
		}
		i++
		if i == len(ln) {
			break // a trailing comma
		}
		if col == n-1 {
			return dst, false // more fields than n
		}
	}
	return dst, len(dst) == n
}

// maxInt64Text is INT64_MAX in digits: a 19-digit value is one when
// its digits sort no later.
const maxInt64Text = "9223372036854775807"

// read reads the part's rows of n columns.
func (pt *gfxRowPart) read(idx gfxColumns, n int, need []bool) {
	pt.acc = gfxRowAcc{frames: pt.acc.frames[:0], periods: [2][]periodRun{pt.acc.periods[0][:0], pt.acc.periods[1][:0]}}
	pt.bytes, pt.lines, pt.whole = 0, 0, false
	text := pt.text
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		row, ok := gfxRowFields(text[:i], pt.scratch[:0], n, need)
		if !ok {
			// A row the word-at-a-time reading leaves (a 19-digit
			// value, spaces) is read here as the common path reads
			// it, so a capture with many such rows stays on all
			// cores; anything else ends the part.
			if ln := bytes.TrimSpace(text[:i]); len(ln) > 0 {
				var fields int
				row, fields, ok = gfxRow(ln, pt.scratch[:0], n)
				ok = ok && fields == n
			}
		}
		pt.scratch = row
		if !ok {
			return
		}
		pt.acc.take(idx, row)
		pt.bytes += i + 1
		pt.lines++
		text = text[i+1:]
	}
	pt.whole = true
}

// take reads text, whole lines that follow a row or a header of table t,
// into w and returns the bytes and lines it took.
//
// size, when > 0, is the capture's size in bytes: the first run read
// sizes the window's next block for that many bytes of rows of the run's
// mean length (and 5 % more), and sets it to 0.
func (rr *gfxRowRuns) take(w *ScanWindow, t *FrameTable, text []byte, size *int64) (int, int) {
	k := max(1, min(rr.maxParts, len(text)/rr.minRun))
	for len(rr.parts) < k {
		rr.parts = append(rr.parts, gfxRowPart{})
	}
	parts := rr.parts[:k]
	for i := range parts {
		cut := len(text)
		if i < k-1 {
			cut = len(text) / (k - i)
			if j := bytes.IndexByte(text[cut:], '\n'); j >= 0 {
				cut += j + 1
			} else {
				cut = len(text)
			}
		}
		parts[i].text, text = text[:cut], text[cut:]
	}
	n := len(t.Columns)
	need := rr.need[:0]
	for range n {
		need = append(need, false)
	}
	for _, c := range []int{t.idx.flags, t.idx.intended, t.idx.completed, t.idx.deadline, t.idx.interval, t.idx.start} {
		if c >= 0 && c < n {
			need[c] = true
		}
	}
	rr.need = need
	var wg sync.WaitGroup
	for i := 1; i < k; i++ {
		wg.Go(func() { parts[i].read(t.idx, n, need) })
	}
	parts[0].read(t.idx, n, need)
	wg.Wait()
	rows := 0
	if pt := &parts[0]; *size > 0 && pt.lines > 0 {
		rows = int(min(*size/int64(pt.bytes/pt.lines)*21/20, 1<<26))
		*size = 0
	}
	took, lines := 0, 0
	for i := range parts {
		pt := &parts[i]
		w.add(&pt.acc, rows)
		took += pt.bytes
		lines += pt.lines
		pt.text = nil
		if !pt.whole {
			break
		}
	}
	return took, lines
}

// finish judges the window's rows at the dump's clock (Judge) and
// picks its period.
func (w *ScanWindow) finish(clock int64) {
	w.flush()
	w.Rows = w.acc.rows
	w.Rejected = Rejects{}
	if w.acc.flagged > 0 {
		w.Rejected[RejectFlags] = w.acc.flagged
	}
	// One block (a capture whose size was known, or a short one) is
	// judged in place: each row is read before any is written over it.
	var kept []FrameTimes
	if len(w.blocks) == 1 {
		kept = w.blocks[0][:0]
	} else {
		n := 0
		for _, b := range w.blocks {
			n += len(b)
		}
		kept = make([]FrameTimes, 0, n)
	}
	var last int64
	for _, b := range w.blocks {
		for _, f := range b {
			r := RowReject(FrameStats{IntendedVsync: f.IntendedVsync, FrameCompleted: f.FrameCompleted}, clock)
			if r == "" && f.IntendedVsync <= last {
				r = RejectDuplicateVsync
			}
			if r != "" {
				w.Rejected.Add(r)
				continue
			}
			last = f.IntendedVsync
			kept = append(kept, f)
		}
	}
	w.blocks = nil
	w.Frames = slices.Clip(kept)
	v := w.acc.periods[0]
	if w.acc.swapped > w.acc.plain {
		v = w.acc.periods[1]
	}
	w.RefreshPeriod = medianOfRuns(v)
	w.acc = gfxRowAcc{}
}

// periodRun is n rows in a row with the period-like value v.
type periodRun struct{ v, n int32 }

// addPeriods adds r to runs, to the last run when their values match.
func addPeriods(runs []periodRun, r periodRun) []periodRun {
	if k := len(runs) - 1; k >= 0 && runs[k].v == r.v {
		runs[k].n += r.n
		return runs
	}
	return append(runs, r)
}

// medianOfRuns is the value at index ⌊n/2⌋ of the runs' n values sorted,
// 0 for none (FrameTable.RefreshPeriod's median). It sorts runs.
func medianOfRuns(runs []periodRun) int64 {
	n := 0
	for _, r := range runs {
		n += int(r.n)
	}
	if n == 0 {
		return 0
	}
	slices.SortFunc(runs, func(a, b periodRun) int { return cmp.Compare(a.v, b.v) })
	at := n / 2
	for _, r := range runs {
		if at < int(r.n) {
			return int64(r.v)
		}
		at -= int(r.n)
	}
	return 0 // not reached
}
