package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
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

	flagged        int
	swapped, plain int
	// periods are the period-like values under FrameInterval and
	// FrameStartTime (at most 1 s: they fit 32 bits); rows fill blocks of
	// frames, so a long capture is never copied as it grows.
	periods [2][]int32
	blocks  [][]GfxInfoFrameTimes
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
	p.rowFn = func(t *GfxInfoFrameTable, row []int64) {
		if t != cur {
			cur, w = t, byTable[t]
			if w == nil {
				w = &GfxInfoScanWindow{}
				byTable[t] = w
			}
		}
		w.take(t, row)
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
func (w *GfxInfoScanWindow) take(t *GfxInfoFrameTable, row []int64) {
	w.Rows++
	if row[t.idx.flags] != 0 {
		w.flagged++ // the rule's first check: nothing can change it
	} else {
		f := GfxInfoFrameTimes{IntendedVsync: row[t.idx.intended], FrameCompleted: row[t.idx.completed]}
		if t.idx.deadline >= 0 {
			f.FrameDeadline = row[t.idx.deadline]
		}
		if n := len(w.blocks); n == 0 || len(w.blocks[n-1]) == scanBlock {
			w.blocks = append(w.blocks, make([]GfxInfoFrameTimes, 0, scanBlock))
		}
		b := &w.blocks[len(w.blocks)-1]
		*b = append(*b, f)
	}
	if t.idx.interval < 0 {
		return
	}
	iv := row[t.idx.interval]
	if gfxPeriodLike(iv) {
		w.periods[0] = append(w.periods[0], int32(iv))
	}
	if t.idx.start < 0 {
		return
	}
	// As endTable: which of the two columns holds the period is decided
	// by magnitude over the whole block.
	st := row[t.idx.start]
	switch {
	case gfxPeriodLike(st) && iv > st:
		w.swapped++
	case gfxPeriodLike(iv) && st > iv:
		w.plain++
	}
	if gfxPeriodLike(st) {
		w.periods[1] = append(w.periods[1], int32(st))
	}
}

// finish judges the window's rows at the dump's clock (GfxInfoJudge) and
// picks its period.
func (w *GfxInfoScanWindow) finish(clock int64) {
	w.Rejected = FrameRejects{}
	if w.flagged > 0 {
		w.Rejected[FrameRejectFlags] = w.flagged
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
	v := w.periods[0]
	if w.swapped > w.plain {
		v = w.periods[1]
	}
	if len(v) > 0 {
		slices.Sort(v)
		w.RefreshPeriod = int64(v[len(v)/2])
	}
	w.periods = [2][]int32{}
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
