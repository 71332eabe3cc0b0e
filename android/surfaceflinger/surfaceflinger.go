package surfaceflinger

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// Sources of SurfaceFlinger output in errors and reports.
const (
	LatencySource   = "dumpsys SurfaceFlinger --latency"
	ListSource      = "dumpsys SurfaceFlinger --list"
	CounterSource   = "service call SurfaceFlinger 1013"
	TimeStatsSource = "dumpsys SurfaceFlinger --timestats -dump"
)

// Latency is `dumpsys SurfaceFlinger --latency <layer>`.
type Latency struct {
	// RefreshPeriod is line 1, in ns (16666666 or 16666667 at 60 Hz).
	RefreshPeriod int64
	// Rows are every row as printed, oldest first.
	Rows []LatencyFrame
	// Frames are the rows RowReject keeps: B neither 0 nor
	// INT64_MAX and after the previous frame's. An empty list with a period
	// is what Android 11+ prints for a layer that draws nothing (or the
	// wrong layer name).
	Frames []LatencyFrame
	// Rejected counts the other rows by reason, and Dropped is their total.
	Rejected gfxinfo.Rejects
	Dropped  int
	// Truncated reports a last line cut short by a truncated capture.
	Truncated bool
}

// LatencyFrame is one --latency row "A B C" in ns.
type LatencyFrame struct {
	DesiredPresent int64 `json:"desired_present_ns,omitempty"` // A: when the app wanted it shown
	ActualPresent  int64 `json:"actual_present_ns,omitempty"`  // B: when it was shown (the design's present time)
	FrameReady     int64 `json:"frame_ready_ns,omitempty"`     // C: when its fence signalled
}

// PresentTimes returns each frame's B, the design's t for this source.
func (l *Latency) PresentTimes() []int64 { return PresentTimes(l.Frames) }

// PresentTimes returns each frame's B (ns).
func PresentTimes(frames []LatencyFrame) []int64 {
	out := make([]int64, len(frames))
	for i, f := range frames {
		out[i] = f.ActualPresent
	}
	return out
}

// ParseLatency parses --latency output per the design: line 1
// is the refresh period; each later line of exactly three integers is a row,
// a frame unless RowReject rejects it (B 0 or INT64_MAX, or
// not after the previous frame's B). A last line that is a cut-off row (a
// truncated capture) is ignored and reported by Truncated; any other line
// gives a *devtext.ParseError.
func ParseLatency(b []byte) (*Latency, error) {
	text := devtext.Normalize(b)
	p := sfParser{out: &Latency{Rejected: gfxinfo.Rejects{}}, rows: true}
	lineNo := 0
	for len(text) > 0 {
		var ln []byte
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			ln, text = text[:i], text[i+1:]
		} else {
			ln, text = text, nil
		}
		lineNo++
		if len(ln) > devtext.MaxLine {
			return nil, devtext.LineTooLong(LatencySource, lineNo, ln)
		}
		if err := p.line(ln, lineNo); err != nil {
			return nil, err
		}
	}
	return p.end()
}

// ScanLatency reads --latency output from r as
// ParseLatency does, with the same errors, as a stream: it
// keeps no row, only each frame's present time B (Latency's
// Rows and Frames stay empty), so an hour of frames is read in one pass in
// little memory. UTF-16 text, and text with carriage returns, is decoded
// as it is read (as Normalize turns it), and a line longer than devtext.MaxLine
// ends the reading with an error (devtext.ErrLineTooLong) before it is held.
func ScanLatency(r io.Reader) (*Latency, []int64, error) {
	return scanSurfaceFlinger(r, nil)
}

// scanSurfaceFlinger is ScanLatency, keeping the present
// times in times instead when it is not nil.
func scanSurfaceFlinger(r io.Reader, times *Times) (*Latency, []int64, error) {
	br := bufio.NewReaderSize(r, devtext.ScanBuffer)
	head, err := br.Peek(1 << 16)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, nil, err
	}
	// A reader that knows its size reserves room for all its rows at once,
	// once its first rows tell their length (so a file that holds none,
	// one long line say, reserves nothing); past that, and without a
	// size, the present times double, not grow by a quarter.
	size, read := devtext.ReaderSize(r), int64(0)
	utf16 := len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF)
	// Carriage returns are left in the text: rows take "\r"s before their
	// "\n", and any other line is cut where Normalize cuts it (see
	// crLine), so UTF-8 text is not copied through a decoder, and UTF-16
	// is only decoded.
	switch {
	case utf16:
		br = bufio.NewReaderSize(devtext.NewDecoder(devtext.Unbuffered(br, r)), devtext.ScanBuffer)
		size /= 2 // its text, decoded, is half as long
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
	}
	p := sfParser{out: &Latency{Rejected: gfxinfo.Rejects{}}, times: times}
	var long []byte
	for lineNo := 1; ; lineNo++ {
		// The complete lines already read are taken in one pass; the
		// line they end before is read below.
		if n, err := p.batch(br, &lineNo); err != nil {
			return nil, nil, err
		} else if read += int64(n); size > 0 && p.frames() >= sfRowsToSize {
			p.reserve(size/max(read/int64(lineNo), 1), times)
			size = 0
		}
		ln, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer; the lines lone "\r"s end in
			// it are taken as they come.
			long = append(long, ln...)
			if cut := sfCRCut(long); cut > 0 {
				extra, perr := p.crLine(long[:cut], lineNo)
				if perr != nil {
					return nil, nil, perr
				}
				lineNo += extra + 1
				long = append(long[:0], long[cut:]...)
			}
			if len(bytes.TrimRight(long, "\r")) > devtext.MaxLine {
				return nil, nil, devtext.LineTooLong(LatencySource, lineNo, long[:devtext.LineStartKept])
			}
			ln, err = br.ReadSlice('\n')
		}
		if long != nil {
			ln, long = append(long, ln...), nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, err
		}
		extra, perr := p.crLine(ln, lineNo)
		if perr != nil {
			return nil, nil, perr
		}
		lineNo += extra
		if read += int64(len(ln)); size > 0 && p.frames() >= sfRowsToSize {
			p.reserve(size/max(read/int64(lineNo), 1), times)
			size = 0
		}
		if err != nil {
			break
		}
	}
	l, err := p.end()
	if err != nil {
		return nil, nil, err
	}
	return l, p.present, nil
}

// reserve makes room for rows frames and a twentieth more, at most 2^26,
// by make and copy, not slices.Grow (see sfRoom).
func (p *sfParser) reserve(rows int64, times *Times) {
	n := int(min(rows*21/20, 1<<26))
	if n <= p.frames() {
		return
	}
	if times != nil {
		times.f = append(make([]uint32, 0, n), times.f...)
	} else {
		p.present = append(make([]int64, 0, n), p.present...)
	}
}

// batch reads the complete lines br holds, from line *lineNo on, as line
// does, and leaves br at the first line it does not hold whole; it
// returns how many bytes it read. Rows are read in one pass over the
// buffer, with no copy; any other line goes to line.
func (p *sfParser) batch(br *bufio.Reader, lineNo *int) (int, error) {
	if !p.seenPeriod || p.rows {
		return 0, nil
	}
	data, _ := br.Peek(br.Buffered())
	i := 0
	for i < len(data) {
		if p.cut == nil {
			if present, n := sfRowAt(data[i:]); n > 0 {
				p.keep([3]int64{1: present}) // A and C decide nothing
				i += n
				*lineNo++
				continue
			}
		}
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 {
			break
		}
		extra, err := p.crLine(data[i:i+nl+1], *lineNo)
		if err != nil {
			return i, err
		}
		i += nl + 1
		*lineNo += 1 + extra
	}
	br.Discard(i)
	return i, nil
}

// sfRowAt reads the row line b starts with when it is three unsigned
// integers of at most 19 digits (INT64_MAX at most) apart by spaces or
// tabs, with spaces or tabs around, and "\n" (or "\r"s and "\n") after:
// its B and the line's length with its end; else n is 0, and line
// decides. Only B's value is read (A and C decide nothing for a frame, see
// RowReject), eight digits at a time; A's and C's digits are only
// counted, eight at a time.
func sfRowAt(b []byte) (present int64, n int) {
	j := 0
	for k := range 3 {
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		var d int
		if k == 1 {
			v, m := devtext.Digits(b[j:min(len(b), j+20)])
			present, d = int64(v), m
		} else {
			d = sfDigitRun(b[j:])
		}
		if d == 0 || d > 19 || d == 19 && string(b[j:j+19]) > sfMaxInt64 {
			return 0, 0
		}
		j += d
	}
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	for j < len(b) && b[j] == '\r' {
		j++ // "\r\n" and "\r\r\n" end a line as "\n" does
	}
	if j == len(b) || b[j] != '\n' {
		return 0, 0
	}
	return present, j + 1
}

// crLine is line on ln, one line read up to its "\n" or the text's end,
// cut where Normalize cuts text: "\r\n", "\r\r\n" and a lone "\r" each
// end a line. It returns how many more lines than one ln held.
func (p *sfParser) crLine(ln []byte, lineNo int) (extra int, err error) {
	for {
		k, e := bytes.IndexByte(ln, '\r'), len(ln) // the line's text, and its end
		if k < 0 {
			k = len(bytes.TrimSuffix(ln, []byte("\n")))
		} else {
			for e = k + 1; e < len(ln) && ln[e] == '\r'; e++ {
			}
			if e < len(ln) && ln[e] == '\n' {
				e++
			}
		}
		if k > devtext.MaxLine {
			return extra, devtext.LineTooLong(LatencySource, lineNo+extra, ln[:k])
		}
		if err := p.line(ln[:k], lineNo+extra); err != nil || e == len(ln) {
			return extra, err
		}
		extra++
		ln = ln[e:]
	}
}

// sfCRCut is the length of the lines b's lone "\r"s end, up to the last
// run of "\r" that is not b's end (where a "\n" may follow): 0 when
// there is none.
func sfCRCut(b []byte) int {
	k := bytes.LastIndexByte(b, '\r')
	if k == len(b)-1 {
		k = bytes.LastIndexByte(bytes.TrimRight(b, "\r"), '\r')
	}
	return k + 1
}

// sfMaxInt64 is INT64_MAX's digits.
const sfMaxInt64 = "9223372036854775807"

// sfDigitRun is the number of ASCII digits b starts with, counted eight
// at a time, and up to 20 only: any count over 19 is too many.
func sfDigitRun(b []byte) int {
	n := 0
	for n+8 <= len(b) && n < 20 {
		if m := devtext.NonDigits8(binary.LittleEndian.Uint64(b[n:])); m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
		n += 8
	}
	for n < len(b) && n < 20 && b[n]-'0' <= 9 {
		n++
	}
	return n
}

// sfParser reads --latency output a line at a time.
type sfParser struct {
	out        *Latency
	rows       bool    // keep Rows and Frames, else only present
	present    []int64 // B of each frame when !rows and times is nil
	times      *Times  // B of each frame, when not nil
	seenPeriod bool
	prevB      int64
	// cut is a row cut short: the capture's end unless a line follows.
	cut *devtext.ParseError
}

func (p *sfParser) line(ln []byte, lineNo int) error {
	ln = bytes.TrimSpace(ln)
	if len(ln) == 0 {
		return nil
	}
	if p.cut != nil {
		return p.cut
	}
	bad := func(reason string) *devtext.ParseError {
		return &devtext.ParseError{Source: LatencySource, Line: lineNo, Text: string(ln), Reason: reason}
	}
	if !p.seenPeriod {
		v, ok := devtext.ParseInt(ln)
		if !ok || v < 0 {
			return bad("first line is not the refresh period in ns")
		}
		p.out.RefreshPeriod, p.seenPeriod = v, true
		return nil
	}
	row, ok := sfFastRow(ln)
	n := 3
	if !ok {
		n, ok = 0, true
		for f := range bytes.FieldsSeq(ln) {
			if n == 3 {
				ok = false
				break
			}
			v, good := devtext.ParseInt(f)
			if !good {
				ok = false
				break
			}
			row[n] = v
			n++
		}
	}
	if !ok || n != 3 {
		if n < 3 && sfDigitsAndSpaces(ln) {
			p.cut = bad("row is not three integers")
			return nil
		}
		return bad("row is not three integers")
	}
	p.keep(row)
	return nil
}

// keep takes a row of three integers: a frame unless RowReject rejects it.
func (p *sfParser) keep(row [3]int64) {
	f := LatencyFrame{DesiredPresent: row[0], ActualPresent: row[1], FrameReady: row[2]}
	if p.rows {
		p.out.Rows = append(p.out.Rows, f)
	}
	if r := RowReject(f, p.prevB, 0); r != "" {
		p.out.Rejected.Add(r)
		p.out.Dropped++
		return
	}
	p.prevB = f.ActualPresent
	switch {
	case p.rows:
		p.out.Frames = append(p.out.Frames, f)
	case p.times != nil:
		p.times.f = sfRoom(p.times.f)
		p.times.Add(f.ActualPresent)
	default:
		p.present = append(sfRoom(p.present), f.ActualPresent)
	}
}

// sfRoom makes room for one more value in s, doubling it when full
// (rather than append's quarter), by make and copy, not slices.Grow, which
// clears, and so pages in, the room before it is used.
func sfRoom[E int64 | uint32](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return append(make([]E, 0, 2*len(s)+1024), s...)
}

// frames is the number of frames kept so far.
func (p *sfParser) frames() int {
	if p.times != nil {
		return p.times.n
	}
	return len(p.present)
}

// sfRowsToSize is how many frames a scan reads before it sizes its
// present times for the rest of a capture of known size.
const sfRowsToSize = 1024

func (p *sfParser) end() (*Latency, error) {
	if !p.seenPeriod {
		return nil, &devtext.ParseError{Source: LatencySource, Reason: "empty output: no refresh period line"}
	}
	p.out.Truncated = p.cut != nil
	return p.out, nil
}

// sfFastRow reads a row of three unsigned integers of at most 19 digits
// (INT64_MAX, a pending fence, at most)
// apart by spaces or tabs in one pass; anything else is left to the
// general path.
func sfFastRow(ln []byte) ([3]int64, bool) {
	var row [3]int64
	n := 0
	for i := 0; i < len(ln); {
		if c := ln[i]; c == ' ' || c == '\t' {
			i++
			continue
		}
		// A value, eight digits at a time; one not followed by a space,
		// a tab or the line's end makes the next value's digits none.
		v, k := devtext.Digits(ln[i:])
		if k == 0 || k > 19 || k == 19 && v > math.MaxInt64 || n == 3 {
			return row, false
		}
		row[n] = int64(v)
		n++
		i += k
	}
	return row, n == 3
}

func sfDigitsAndSpaces(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// LayerKind classifies a layer of `--list`.
type LayerKind int

// Layer kinds, from most to least likely to carry an app's frames.
const (
	Other LayerKind = iota
	// SurfaceViewBLAST: "SurfaceView[pkg/Act](BLAST)#N" or
	// "SurfaceView[pkg/Act]@0(BLAST)#N" (Android 12+).
	SurfaceViewBLAST
	// SurfaceView: "SurfaceView[pkg/Act]#N" or the Android
	// 7–10 "SurfaceView - pkg/Act#0".
	SurfaceView
	// Activity: the app window's own layer "pkg/Act#N" (or
	// "pkg/Act" on old builds).
	Activity
	// WindowContainer: a WindowManager container that holds
	// no buffers ("ActivityRecord{…}", "hash pkg/Act#N", "Background for …",
	// "Bounds for - …", input sinks).
	WindowContainer
)

// Layer is one `--list` entry.
type Layer struct {
	// Name is the layer name to pass to --latency, with any Android 15
	// "RequestedLayerState{…}" wrapper and "parentId=…" removed.
	Name string
	Kind LayerKind
	// Component is "pkg/Act" when the name carries one.
	Component string
	// ID is the "#N" suffix, -1 when absent.
	ID int64
}

// Package returns the package part of Component.
func (l Layer) Package() string {
	p, _, _ := strings.Cut(l.Component, "/")
	return p
}

// ParseList parses `dumpsys SurfaceFlinger --list` of any
// style (old names, "SurfaceView - pkg/Act#0", "SurfaceView[pkg/Act](BLAST)#0",
// Android 15 "RequestedLayerState{…}"), also when filtered by grep/findstr.
func ParseList(b []byte) ([]Layer, error) {
	var out []Layer
	for i, raw := range strings.Split(string(devtext.Normalize(b)), "\n") {
		s := strings.TrimSpace(raw)
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "Can't find service") || strings.HasPrefix(s, "Permission Denial") {
			return nil, &devtext.ParseError{Source: ListSource, Line: i + 1, Text: s, Reason: "SurfaceFlinger did not list its layers"}
		}
		out = append(out, sfClassify(sfUnwrap(s)))
	}
	return out, nil
}

// sfUnwrap turns "RequestedLayerState{name#id parentId=p z=…}" into "name#id".
func sfUnwrap(s string) string {
	inner, ok := strings.CutPrefix(s, "RequestedLayerState{")
	if !ok {
		return s
	}
	inner = strings.TrimSuffix(inner, "}")
	if i := strings.LastIndex(inner, " parentId="); i >= 0 {
		inner = inner[:i]
	}
	return strings.TrimSpace(inner)
}

func sfLayerID(s string) int64 {
	i := strings.LastIndexByte(s, '#')
	if i < 0 {
		return -1
	}
	v, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || v < 0 {
		return -1
	}
	return v
}

func sfClassify(name string) Layer {
	l := Layer{Name: name, ID: sfLayerID(name)}
	base := name
	if i := strings.LastIndexByte(base, '#'); i >= 0 && l.ID >= 0 {
		base = base[:i]
	}
	switch {
	case strings.HasPrefix(base, "SurfaceView["):
		comp, tail, ok := strings.Cut(base[len("SurfaceView["):], "]")
		if !ok {
			return l
		}
		l.Component = comp
		l.Kind = SurfaceView
		if strings.Contains(tail, "(BLAST)") {
			l.Kind = SurfaceViewBLAST
		}
	case strings.HasPrefix(base, "SurfaceView - "):
		l.Component = strings.TrimSpace(base[len("SurfaceView - "):])
		l.Kind = SurfaceView
	case strings.HasPrefix(base, "ActivityRecord{"), strings.HasPrefix(base, "Background for "),
		strings.HasPrefix(base, "Bounds for - "):
		l.Kind = WindowContainer
		l.Component = sfComponentIn(base)
	default:
		f := strings.Fields(base)
		switch {
		case len(f) == 1 && sfIsComponent(f[0]):
			l.Kind, l.Component = Activity, f[0]
		case len(f) >= 2 && sfIsHex(f[0]):
			// "56d18fd pkg/Act" is the WindowState; "hash ActivityRecordInputSink pkg/Act" an input sink.
			l.Kind = WindowContainer
			l.Component = sfComponentIn(base)
		}
	}
	return l
}

func sfComponentIn(s string) string {
	for _, f := range strings.Fields(strings.NewReplacer("[", " ", "]", " ", "{", " ", "}", " ").Replace(s)) {
		if sfIsComponent(f) {
			return f
		}
	}
	return ""
}

// sfIsComponent reports "pkg/Act" or "pkg/.Act" with a dotted package.
func sfIsComponent(s string) bool {
	pkg, act, ok := strings.Cut(s, "/")
	return ok && act != "" && !strings.Contains(act, "/") && strings.Contains(pkg, ".") &&
		!strings.ContainsAny(pkg, " ()@{}[]")
}

func sfIsHex(s string) bool {
	if len(s) < 6 || len(s) > 8 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ErrNoLayer is returned by PickLayer when the list holds no
// layer of the package.
var ErrNoLayer = errors.New("no frame-producing layer for the package")

// PickLayer chooses, from a parsed --list, the layer whose --latency shows
// the package's frames. The rule: a SurfaceView of the package draws the
// content when there is one (games, video, maps), so prefer it, and of its
// layers the BLAST one, because on Android 12+ only the BLAST layer carries
// frames and the plain one reports zeros; else the app window's own layer
// ("pkg/Act#N", which is BLAST-backed on Android 12+). WindowManager
// containers ("ActivityRecord{…}", "hash pkg/Act", "Background for …") never
// carry buffers and are skipped. Among layers of the same kind the one with
// the highest "#id" wins (the newest surface; older ones are being torn
// down), ties keep list order.
func PickLayer(layers []Layer, pkg string) (Layer, error) {
	best, found := Layer{}, false
	rank := func(k LayerKind) int {
		switch k {
		case SurfaceViewBLAST:
			return 3
		case SurfaceView:
			return 2
		case Activity:
			return 1
		}
		return 0
	}
	for _, l := range layers {
		if rank(l.Kind) == 0 || l.Package() != pkg {
			continue
		}
		if !found || rank(l.Kind) > rank(best.Kind) || rank(l.Kind) == rank(best.Kind) && l.ID > best.ID {
			best, found = l, true
		}
	}
	if !found {
		return best, fmt.Errorf("%s: %w: %s", ListSource, ErrNoLayer, excerpt.Quote(pkg))
	}
	return best, nil
}

// ParseFrameCounter parses `service call SurfaceFlinger 1013`,
// whose reply parcel holds SurfaceFlinger's page-flip counter as its first
// 32-bit word: "Result: Parcel(000d1b3a    '....')" or the multi-line
// "Result: Parcel(\n  0x00000000: 000d1b3a '....')" form. Frames shown
// between two calls = difference of the counters (mod 2^32).
func ParseFrameCounter(b []byte) (uint32, error) {
	s := strings.TrimSpace(string(devtext.Normalize(b)))
	bad := func(reason string) error {
		line := s
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		return &devtext.ParseError{Source: CounterSource, Line: 1, Text: line, Reason: reason}
	}
	rest, ok := strings.CutPrefix(s, "Result: Parcel(")
	if !ok {
		return 0, bad("not a Result: Parcel(…) reply")
	}
	if strings.HasPrefix(rest, "Error") {
		return 0, bad("the call failed")
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "0x") {
		// Multi-line dump: "0x00000000: word word … 'ascii'".
		_, after, ok := strings.Cut(rest, ":")
		if !ok {
			return 0, bad("no words after the offset")
		}
		rest = strings.TrimSpace(after)
	}
	word, _, _ := strings.Cut(rest, " ")
	word = strings.TrimSuffix(word, ")")
	if len(word) != 8 {
		return 0, bad("first word is not 8 hex digits")
	}
	v, err := strconv.ParseUint(word, 16, 32)
	if err != nil {
		return 0, bad("first word is not 8 hex digits")
	}
	return uint32(v), nil
}

// TimeStats is `dumpsys SurfaceFlinger --timestats -dump`.
type TimeStats struct {
	// Fields holds the global "key = value" lines as printed (statsStart,
	// statsEnd, totalFrames, missedFrames, clientCompositionFrames,
	// displayOnTime, totalP2PTime, …).
	Fields map[string]string
	// TotalFrames and MissedFrames are the global counts, -1 if absent.
	TotalFrames, MissedFrames int64
	// DisplayConfigStats maps "90fps" to milliseconds spent in that mode.
	DisplayConfigStats map[string]int64
	// Histograms maps a name ("frameDuration", "presentToPresent") to its
	// buckets.
	Histograms map[string][]gfxinfo.HistogramBucket
	Layers     []TimeStatsLayer
}

// TimeStatsLayer is one "layerName = …" section.
type TimeStatsLayer struct {
	Name          string
	Package       string
	TotalFrames   int64
	DroppedFrames int64
	// AverageFPS may be +Inf (a layer that presented one frame).
	AverageFPS float64
	Fields     map[string]string
	Histograms map[string][]gfxinfo.HistogramBucket
}

// ParseTimeStats parses --timestats -dump.
func ParseTimeStats(b []byte) (*TimeStats, error) {
	p := timeStatsParser{out: &TimeStats{
		Fields: map[string]string{}, TotalFrames: -1, MissedFrames: -1,
		DisplayConfigStats: map[string]int64{}, Histograms: map[string][]gfxinfo.HistogramBucket{},
	}}
	for i, raw := range strings.Split(string(devtext.Normalize(b)), "\n") {
		s := strings.TrimSpace(raw)
		if s == "" || s == "SurfaceFlinger TimeStats:" {
			continue
		}
		if reason := p.line(s); reason != "" {
			return nil, &devtext.ParseError{Source: TimeStatsSource, Line: i + 1, Text: s, Reason: reason}
		}
	}
	return p.out, nil
}

// timeStatsParser is the state of ParseTimeStats between lines.
type timeStatsParser struct {
	out     *TimeStats
	layer   *TimeStatsLayer // the section being read; nil before the first
	pending string          // a "… is as below:" heading waiting for its line
}

// line reads the trimmed line s and returns why it is malformed, or "".
func (p *timeStatsParser) line(s string) string {
	if h, ok := strings.CutSuffix(s, " is as below:"); ok {
		p.pending = strings.TrimSuffix(h, " histogram")
		return ""
	}
	if p.pending != "" {
		name := p.pending
		p.pending = ""
		return p.below(name, s)
	}
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "not a key = value line"
	}
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if k == "layerName" {
		p.out.Layers = append(p.out.Layers, TimeStatsLayer{
			Name: v, TotalFrames: -1, DroppedFrames: -1, AverageFPS: math.NaN(),
			Fields: map[string]string{}, Histograms: map[string][]gfxinfo.HistogramBucket{},
		})
		p.layer = &p.out.Layers[len(p.out.Layers)-1]
		return ""
	}
	if p.layer == nil {
		return p.out.field(k, v)
	}
	return p.layer.field(k, v)
}

// below reads s, the line under the heading "name is as below:": the
// display modes' times or a histogram.
func (p *timeStatsParser) below(name, s string) string {
	if name == "displayConfigStats" {
		for _, tok := range strings.Fields(s) {
			k, v, ok := strings.Cut(tok, "=")
			ms, err := strconv.ParseInt(strings.TrimSuffix(v, "ms"), 10, 64)
			if !ok || err != nil {
				return "bad displayConfigStats entry"
			}
			p.out.DisplayConfigStats[k] = ms
		}
		return ""
	}
	h, err := sfHistogram(s)
	if err != nil {
		return err.Error()
	}
	if p.layer != nil {
		p.layer.Histograms[name] = h
	} else {
		p.out.Histograms[name] = h
	}
	return ""
}

// field reads a global "k = v" line and returns why it is malformed, or "".
func (out *TimeStats) field(k, v string) string {
	out.Fields[k] = v
	switch k {
	case "totalFrames":
		return timeStatsInt(v, &out.TotalFrames)
	case "missedFrames":
		return timeStatsInt(v, &out.MissedFrames)
	}
	return ""
}

// field reads a layer's "k = v" line and returns why it is malformed, or
// "".
func (layer *TimeStatsLayer) field(k, v string) string {
	layer.Fields[k] = v
	switch k {
	case "packageName":
		layer.Package = v
	case "totalFrames":
		return timeStatsInt(v, &layer.TotalFrames)
	case "droppedFrames":
		return timeStatsInt(v, &layer.DroppedFrames)
	case "averageFPS":
		f, err := strconv.ParseFloat(v, 64) // accepts "inf"
		layer.AverageFPS = f
		if err != nil {
			return "averageFPS is not a number"
		}
	}
	return ""
}

// timeStatsInt sets *dst to the integer v, or returns why it cannot.
func timeStatsInt(v string, dst *int64) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return "value is not an integer"
	}
	*dst = n
	return ""
}

func sfHistogram(s string) ([]gfxinfo.HistogramBucket, error) {
	var out []gfxinfo.HistogramBucket
	for _, tok := range strings.Fields(s) {
		ms, cnt, ok := strings.Cut(tok, "ms=")
		m, err1 := strconv.ParseInt(ms, 10, 64)
		c, err2 := strconv.ParseInt(cnt, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad histogram entry %s", excerpt.Quote(tok))
		}
		out = append(out, gfxinfo.HistogramBucket{Millis: m, Count: c})
	}
	return out, nil
}
