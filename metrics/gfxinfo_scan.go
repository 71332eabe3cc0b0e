package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"
)

// GfxInfoFrameTimes is what the frame metrics read of one gfxinfo row.
type GfxInfoFrameTimes struct {
	IntendedVsync, FrameCompleted, FrameDeadline int64
}

// GfxInfoScan is a gfxinfo capture read as a stream by ScanGfxInfo.
type GfxInfoScan struct {
	// Info is the dump without its rows: clocks, processes, windows and
	// their statistics; each window's Frames table holds its header only.
	Info *GfxInfo
	// Windows are the windows with a PROFILEDATA block, in output order.
	Windows []*GfxInfoScanWindow
}

// GfxInfoScanWindow is one window's PROFILEDATA block, reduced to what the
// frame metrics read.
type GfxInfoScanWindow struct {
	Window *GfxInfoWindow
	// Rows is the number of rows read.
	Rows int
	// Frames are the rows GfxInfoJudge keeps at the dump's clock, in
	// output order; Rejected counts the others by reason.
	Frames   []GfxInfoFrameTimes
	Rejected FrameRejects
	// RefreshPeriod is GfxInfoFrameTable.RefreshPeriod of the block.
	RefreshPeriod int64

	acc gfxRowAcc
	// Rows fill blocks of frames, so a long capture is never copied as it
	// grows.
	blocks [][]GfxInfoFrameTimes
}

// gfxRowAcc is what a run of one window's rows adds up to.
type gfxRowAcc struct {
	rows, flagged  int
	swapped, plain int
	// periods are the period-like values under FrameInterval and
	// FrameStartTime (at most 1 s: they fit 32 bits).
	periods [2][]int32
	// frames are the rows of Flags 0, in output order.
	frames []GfxInfoFrameTimes
}

// scanBlock is the number of frames in one block of a window's rows.
const scanBlock = 1 << 14

// ScanGfxInfo reads `dumpsys gfxinfo … framestats` from r as ParseGfxInfo
// does, with the same errors, but holds no row: each window keeps per frame
// only its IntendedVsync, FrameCompleted and FrameDeadline, so an hour of
// frames (432,000 at 120 Hz, over 100 MB of text) is read in one pass in
// little memory. UTF-16 text, and text with carriage returns, is read whole
// and normalised first (Normalize).
func ScanGfxInfo(r io.Reader) (*GfxInfoScan, error) {
	return scanGfxInfo(r, gfxRowRuns{minRun: gfxRowRunMin, maxParts: min(runtime.GOMAXPROCS(0), 8)})
}

// scanGfxInfo is ScanGfxInfo with rows read as rr says.
func scanGfxInfo(r io.Reader, rr gfxRowRuns) (*GfxInfoScan, error) {
	br := bufio.NewReaderSize(r, scanBuffer)
	head, err := br.Peek(1 << 16)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	sc := &GfxInfoScan{}
	p := gfxParser{g: &GfxInfo{}}
	byTable := map[*GfxInfoFrameTable]*GfxInfoScanWindow{}
	var cur *GfxInfoFrameTable
	var w *GfxInfoScanWindow
	window := func(t *GfxInfoFrameTable) *GfxInfoScanWindow {
		if t != cur {
			cur, w = t, byTable[t]
			if w == nil {
				w = &GfxInfoScanWindow{}
				byTable[t] = w
			}
		}
		return w
	}
	p.rowFn = func(t *GfxInfoFrameTable, row []int64) {
		w := window(t)
		w.acc.take(t.idx, row)
		w.flush(false)
	}
	if rr.maxParts > 1 {
		p.rowRunMin = max(1, rr.minRun)
		p.rowsFn = func(t *GfxInfoFrameTable, text []byte) (int, int) {
			return rr.take(window(t), t, text)
		}
	}
	utf16 := len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF)
	if utf16 || bytes.IndexByte(head, '\r') >= 0 {
		all, err := io.ReadAll(br)
		if err != nil {
			return nil, err
		}
		text := Normalize(all)
		if err := gfxRefused(text); err != nil {
			return nil, err
		}
		if err := p.run(text); err != nil {
			return nil, err
		}
	} else {
		if bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}) {
			br.Discard(3)
		}
		if err := p.stream(br); err != nil {
			return nil, err
		}
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
			w = &GfxInfoScanWindow{}
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
			buf, _ := br.Peek(scanBuffer)
			if i := bytes.LastIndexByte(buf, '\n'); i >= p.rowRunMin {
				n, lines := p.rowsFn(p.table, buf[:i+1])
				br.Discard(n)
				lineNo += lines
			}
		}
		ln, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
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

// take keeps what the metrics read of one row.
func (a *gfxRowAcc) take(idx gfxColumns, row []int64) {
	a.rows++
	if row[idx.flags] != 0 {
		a.flagged++ // the rule's first check: nothing can change it
	} else {
		f := GfxInfoFrameTimes{IntendedVsync: row[idx.intended], FrameCompleted: row[idx.completed]}
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
		a.periods[0] = append(a.periods[0], int32(iv))
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
		a.periods[1] = append(a.periods[1], int32(st))
	}
}

// flush moves the window's frames into blocks once a block is full, or
// all of them when all is set.
func (w *GfxInfoScanWindow) flush(all bool) {
	if len(w.acc.frames) < scanBlock && (!all || len(w.acc.frames) == 0) {
		return
	}
	w.blocks = append(w.blocks, w.acc.frames)
	w.acc.frames = nil
}

// add appends a run of the window's rows read apart (gfxRowRuns).
func (w *GfxInfoScanWindow) add(a *gfxRowAcc) {
	w.acc.rows += a.rows
	w.acc.flagged += a.flagged
	w.acc.swapped += a.swapped
	w.acc.plain += a.plain
	for i := range a.periods {
		w.acc.periods[i] = append(w.acc.periods[i], a.periods[i]...)
	}
	for f := a.frames; len(f) > 0; {
		if w.acc.frames == nil {
			w.acc.frames = make([]GfxInfoFrameTimes, 0, scanBlock)
		}
		k := min(len(f), scanBlock-len(w.acc.frames))
		w.acc.frames = append(w.acc.frames, f[:k]...)
		f = f[k:]
		w.flush(false)
	}
}

// gfxRowRunMin is the least text of whole lines worth reading as a run of
// rows on several cores.
const gfxRowRunMin = 64 << 10

// gfxRowRuns reads the rows of a long PROFILEDATA block on several cores:
// the text is cut at line ends into one part per core, each part read as
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
}

type gfxRowPart struct {
	text         []byte
	acc          gfxRowAcc
	scratch      []int64
	bytes, lines int
	whole        bool // every line of text was a row
}

// read reads the part's rows of n columns.
func (pt *gfxRowPart) read(idx gfxColumns, n int) {
	pt.acc = gfxRowAcc{frames: pt.acc.frames[:0], periods: [2][]int32{pt.acc.periods[0][:0], pt.acc.periods[1][:0]}}
	pt.bytes, pt.lines, pt.whole = 0, 0, false
	text := pt.text
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		row, ok := gfxFastRow(text[:i], pt.scratch[:0], n)
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
func (rr *gfxRowRuns) take(w *GfxInfoScanWindow, t *GfxInfoFrameTable, text []byte) (int, int) {
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
	var wg sync.WaitGroup
	for i := 1; i < k; i++ {
		wg.Go(func() { parts[i].read(t.idx, n) })
	}
	parts[0].read(t.idx, n)
	wg.Wait()
	took, lines := 0, 0
	for i := range parts {
		pt := &parts[i]
		w.add(&pt.acc)
		took += pt.bytes
		lines += pt.lines
		pt.text = nil
		if !pt.whole {
			break
		}
	}
	return took, lines
}

// finish judges the window's rows at the dump's clock (GfxInfoJudge) and
// picks its period.
func (w *GfxInfoScanWindow) finish(clock int64) {
	w.flush(true)
	w.Rows = w.acc.rows
	w.Rejected = FrameRejects{}
	if w.acc.flagged > 0 {
		w.Rejected[FrameRejectFlags] = w.acc.flagged
	}
	n := 0
	for _, b := range w.blocks {
		n += len(b)
	}
	kept := make([]GfxInfoFrameTimes, 0, n)
	var last int64
	for _, b := range w.blocks {
		for _, f := range b {
			r := GfxInfoRowReject(GfxInfoFrame{IntendedVsync: f.IntendedVsync, FrameCompleted: f.FrameCompleted}, clock)
			if r == "" && f.IntendedVsync <= last {
				r = FrameRejectDuplicateVsync
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
	if len(v) > 0 {
		slices.Sort(v)
		w.RefreshPeriod = int64(v[len(v)/2])
	}
	w.acc = gfxRowAcc{}
}

// FrameSummarizeGfxInfoTimes is FrameSummarizeGfxInfo over the times of
// frames (GfxInfoScanWindow.Frames).
func FrameSummarizeGfxInfoTimes(frames []GfxInfoFrameTimes, period int64) FrameSummary {
	t := make([]int64, 0, len(frames))
	d := make([]int64, 0, len(frames))
	var late []int64
	for _, x := range frames {
		f := GfxInfoFrame{IntendedVsync: x.IntendedVsync, FrameCompleted: x.FrameCompleted, FrameDeadline: x.FrameDeadline}
		if !gfxUsable(f) {
			continue
		}
		if n := len(t); n > 0 && f.IntendedVsync < t[n-1] {
			// Out of vsync order: the general path sorts them.
			var g GfxInfoFrame
			return frameSummarizeGfx(frames, func(x *GfxInfoFrameTimes) *GfxInfoFrame {
				g = GfxInfoFrame{IntendedVsync: x.IntendedVsync, FrameCompleted: x.FrameCompleted, FrameDeadline: x.FrameDeadline}
				return &g
			}, period)
		}
		t = append(t, f.IntendedVsync)
		d = append(d, f.Duration())
		if GfxInfoFrameDeadlineMissed(f, period) {
			late = append(late, f.IntendedVsync)
		}
	}
	return gfxSummaryOf(t, d, late, period)
}

// scanBuffer is the read buffer of the streaming parsers: large reads
// keep a long capture's system calls few.
const scanBuffer = 1 << 20
