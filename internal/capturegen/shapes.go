package capturegen

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// Shape is a capture unlike Capture's: frame times drawn at random
// (irregular, with janks), values of random widths, rows of every kind
// the reject rule refuses, several windows, and CRLF or UTF-16 text. A
// shape and its Seed give the same bytes on every run.
type Shape struct {
	Name string
	Seed uint64
	// Frames in all, split over Windows windows (at least 1); Hz the
	// refresh rate.
	Frames, Windows int
	Hz              float64
	// Jank is the share of frames that last 1.5 to 8 periods; Irregular
	// makes every frame's start and length vary by up to half a period.
	Jank      float64
	Irregular bool
	// Rejects is the share of rows the reject rule refuses, spread over
	// every reason (flags, sentinel, not completed, beyond the clock,
	// completed before vsync, too long, duplicate vsync; for
	// SurfaceFlinger empty, pending fence and backwards).
	Rejects float64
	// Short writes 0 or -1 in the columns phones often leave unset
	// (input, GPU, present, buffer durations), so rows are shorter and of
	// varied length; Wide writes 19-digit values (INT64_MAX) in the vsync
	// id column, as hwui does for a frame without one.
	Short, Wide bool
	// CRLF ends lines with CR LF; UTF16 writes UTF-16LE with a BOM.
	CRLF, UTF16 bool
}

// HourShapes are shapes of an hour at 120 Hz (432,000 frames) that
// differ from Hour and from each other in what a reader's speed could
// depend on.
func HourShapes() []Shape {
	h := Shape{Frames: 432_000, Windows: 1, Hz: 120}
	with := func(name string, seed uint64, f func(*Shape)) Shape {
		s := h
		s.Name, s.Seed = name, seed
		f(&s)
		return s
	}
	return []Shape{
		with("regular", 1, func(s *Shape) {}),
		with("irregular-janky", 2, func(s *Shape) { s.Irregular, s.Jank = true, 0.1 }),
		with("short-rows", 3, func(s *Shape) { s.Irregular, s.Short, s.Jank = true, true, 0.03 }),
		with("rejects", 4, func(s *Shape) { s.Irregular, s.Rejects, s.Jank = true, 0.05, 0.03 }),
		with("wide-values", 5, func(s *Shape) { s.Wide, s.Irregular = true, true }),
		with("windows-7", 6, func(s *Shape) { s.Windows, s.Irregular, s.Jank, s.Rejects = 7, true, 0.05, 0.01 }),
		with("mixed", 7, func(s *Shape) {
			s.Windows, s.Irregular, s.Jank, s.Rejects, s.Short, s.Wide = 3, true, 0.08, 0.03, true, true
		}),
		with("crlf", 8, func(s *Shape) { s.CRLF, s.Irregular, s.Jank, s.Rejects = true, true, 0.05, 0.01 }),
		with("utf16-crlf", 9, func(s *Shape) {
			s.UTF16, s.CRLF, s.Irregular, s.Jank, s.Rejects = true, true, true, 0.05, 0.01
		}),
	}
}

// shapeFrame is one row's times.
type shapeFrame struct {
	vsync, dur int64
	reject     int // 0: a frame; else 1 + the index of the reason
}

// frames calls fn with each of rows rows, a rejected one for one of
// reasons reasons.
func (s Shape) frames(rng *rand.Rand, rows, reasons int, fn func(f shapeFrame)) {
	p := int64(math.Round(1e9 / s.Hz))
	v := start + int64(rng.IntN(int(p)))
	for range rows {
		d := p * int64(30+rng.IntN(40)) / 100
		if !s.Irregular {
			d = p * 45 / 100
		}
		if s.Jank > 0 && rng.Float64() < s.Jank {
			d = p*3/2 + rng.Int64N(p*13/2)
		}
		f := shapeFrame{vsync: v, dur: d}
		if s.Rejects > 0 && rng.Float64() < s.Rejects {
			f.reject = 1 + rng.IntN(reasons)
		}
		fn(f)
		step := p * (1 + d/p)
		if s.Irregular && rng.IntN(4) == 0 {
			step += p * int64(rng.IntN(3))
		}
		v += step
	}
}

// digits is a value of 1 to 9 random digits.
func digits(rng *rand.Rand) int64 { return rng.Int64N(int64(pow10i[1+rng.IntN(9)])) }

var pow10i = [10]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// GfxInfo writes the shape as gfxinfo framestats of a 23-column
// Android 13 dump.
func (s Shape) GfxInfo(w io.Writer) error {
	return s.write(w, s.gfxInfo)
}

// SurfaceFlinger writes the shape as `dumpsys SurfaceFlinger --latency`
// of one layer.
func (s Shape) SurfaceFlinger(w io.Writer) error {
	return s.write(w, s.surfaceFlinger)
}

// write writes body through the shape's line ends and encoding.
func (s Shape) write(w io.Writer, body func(*bufio.Writer)) error {
	var out io.Writer = w
	var enc *encoder
	if s.CRLF || s.UTF16 {
		enc = &encoder{w: w, crlf: s.CRLF, utf16: s.UTF16}
		out = enc
		if s.UTF16 {
			if _, err := w.Write([]byte{0xFF, 0xFE}); err != nil {
				return err
			}
		}
	}
	bw := bufio.NewWriterSize(out, 1<<16)
	body(bw)
	return bw.Flush()
}

// encoder turns LF into CR LF and ASCII into UTF-16LE as it writes.
type encoder struct {
	w           io.Writer
	crlf, utf16 bool
	buf         []byte
}

func (e *encoder) Write(p []byte) (int, error) {
	e.buf = e.buf[:0]
	for _, c := range p {
		if c == '\n' && e.crlf {
			e.buf = e.put(e.buf, '\r')
		}
		e.buf = e.put(e.buf, c)
	}
	_, err := e.w.Write(e.buf)
	return len(p), err
}

func (e *encoder) put(b []byte, c byte) []byte {
	if e.utf16 {
		return binary.LittleEndian.AppendUint16(b, uint16(c))
	}
	return append(b, c)
}

const gfxHeader = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,\n"

func (s Shape) gfxInfo(bw *bufio.Writer) {
	rng := rand.New(rand.NewPCG(s.Seed, 0x9f))
	p := int64(math.Round(1e9 / s.Hz))
	// Every window's rows span at most the hour plus their janks: the
	// clock is past them all.
	span := int64(s.Frames) * p * 9
	clock := start + span
	gfxHead(bw, clock/1e6, s.Frames)
	nw := max(1, s.Windows)
	for win := range nw {
		name := "com.example.feed/com.example.feed.Activity" + strconv.Itoa(win)
		bw.WriteString("\t" + name + "/android.view.ViewRootImpl@73f2e6" + strconv.Itoa(win) + " (visibility=0)\n")
		bw.WriteString("Window: " + name + "\nStats since: " + strconv.FormatInt(start, 10) + "ns\n\n---PROFILEDATA---\n" + gfxHeader)
		rows := s.Frames / nw
		if win == nw-1 {
			rows = s.Frames - rows*(nw-1)
		}
		g := &gfxRows{s: s, rng: rng, p: p, clock: clock, id: 27_432_918}
		s.frames(rng, rows, 7, func(f shapeFrame) { bw.Write(g.row(f)) })
		bw.WriteString("---PROFILEDATA---\n\n")
	}
	bw.WriteString("View hierarchy:\n\nTotal ViewRootImpl   : " + strconv.Itoa(nw) + "\n")
}

// gfxRows writes a window's rows of a shape.
type gfxRows struct {
	s                  Shape
	rng                *rand.Rand
	p, clock, id, last int64
	buf                []byte
}

func (g *gfxRows) put(x int64) { g.buf = strconv.AppendInt(g.buf, x, 10); g.buf = append(g.buf, ',') }

// row is the text of one row, f made into the row of its reject reason.
func (g *gfxRows) row(f shapeFrame) []byte {
	v, d := f.vsync, f.dur
	flags, completed := int64(0), v+d
	switch f.reject {
	case 1:
		flags = 1 << g.rng.IntN(4)
	case 2:
		completed = math.MaxInt64
	case 3:
		completed = 0
	case 4:
		v, completed = g.clock+int64(11e9)+g.rng.Int64N(1e9), g.clock+int64(12e9)
	case 5:
		completed = v - 1 - g.rng.Int64N(g.p)
	case 6:
		completed = v + int64(61e9) + g.rng.Int64N(1e12)
	case 7:
		v, completed = g.last, g.last+d
	}
	if f.reject != 4 && f.reject != 7 {
		g.last = v
	}
	g.id += 1 + g.rng.Int64N(16)
	g.buf = g.buf[:0]
	g.put(flags)
	if g.s.Wide && g.rng.IntN(3) == 0 {
		g.put(math.MaxInt64)
	} else {
		g.put(g.id)
	}
	g.put(v)
	g.put(v + g.rng.Int64N(g.p/8+1))
	unset := g.s.Short && g.rng.IntN(2) == 0
	if unset {
		g.put(0)
	} else {
		g.put(digits(g.rng))
	}
	for _, q := range []int64{5, 6, 20, 25} {
		g.put(v + d*q/100)
	}
	g.put(v + 2*g.p)       // FrameDeadline
	g.put(v + d*5/100 - 1) // "FrameInterval": a timestamp on API 31–34
	g.put(g.p)             // "FrameStartTime": the period
	for _, q := range []int64{40, 42, 45, 70} {
		g.put(v + d*q/100)
	}
	g.put(completed)
	if unset {
		g.put(0)
		g.put(0)
		g.put(-1)
		g.put(v + d*75/100)
		g.put(-1)
	} else {
		g.put(digits(g.rng))
		g.put(digits(g.rng))
		g.put(v + d)
		g.put(v + d*75/100)
		g.put(v + d + g.p)
	}
	g.put(v + d*70/100)
	if g.rng.IntN(2) == 0 {
		g.buf = g.buf[:len(g.buf)-1] // no trailing comma
	}
	g.buf = append(g.buf, '\n')
	return g.buf
}

func (s Shape) surfaceFlinger(bw *bufio.Writer) {
	rng := rand.New(rand.NewPCG(s.Seed, 0x5f))
	p := int64(math.Round(1e9 / s.Hz))
	bw.WriteString(strconv.FormatInt(p, 10))
	bw.WriteByte('\n')
	var buf []byte
	var lastB int64
	s.frames(rng, s.Frames, 3, func(f shapeFrame) {
		v, d := f.vsync, f.dur
		a, b, c := v+p, v+p*(1+d/p)+p, v+d
		switch f.reject {
		case 1:
			a, b, c = 0, 0, 0
		case 2:
			b = math.MaxInt64
		case 3:
			b = lastB - rng.Int64N(p)
		}
		if f.reject == 0 {
			lastB = b
		}
		buf = strconv.AppendInt(buf[:0], a, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, b, 10)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, c, 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	})
}

// Bytes is the shape written as kind, "gfxinfo" or "surfaceflinger".
func (s Shape) Bytes(kind string) []byte {
	var b bytes.Buffer
	if kind == "gfxinfo" {
		s.GfxInfo(&b)
	} else {
		s.SurfaceFlinger(&b)
	}
	return b.Bytes()
}
