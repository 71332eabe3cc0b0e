package profiler

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/perfgate/perfgate/android/devtext"
	"io"
	"strconv"
	"strings"
)

// SimpleperfSource names simpleperf's sample report in errors.
const SimpleperfSource = "simpleperf report-sample"

// StackFrame is one frame of a sampled stack.
type StackFrame struct {
	// Symbol is the function as the report printed it: "void
	// com.x.Feed.bind(int)", "android.os.Looper.loop", "__epoll_pwait".
	Symbol string `json:"symbol"`
	// File is the binary or dex file the code is in
	// ("/data/app/~~…/com.x-…/oat/arm64/base.odex", "[JIT app cache]").
	File string `json:"file,omitempty"`
}

// StackSample is one sample of a thread with its stack.
type StackSample struct {
	// TimeNs is the sample's time on the clock the recording used
	// (record --clockid; CLOCK_MONOTONIC by default where the kernel can).
	TimeNs int64
	// PID is the process, -1 when the report does not give it
	// (report-sample prints the thread alone).
	PID    int
	TID    int
	Thread string
	Event  string
	// Period is the sample's event count: for cpu-clock, the ns of metrics.CPU
	// time it stands for.
	Period int64
	// Frames are the stack, innermost (the sampled code) first.
	Frames []StackFrame
}

// SimpleperfSamples is a parsed sample report.
type SimpleperfSamples struct {
	Samples []StackSample
	// App is the recorded app (meta_info app_package_name), when given.
	App string
	// Events are the recorded event types (meta_info event_type).
	Events []string
	// TraceOffCPU is set when the recording also sampled the threads while
	// off the metrics.CPU (record --trace-offcpu).
	TraceOffCPU bool
	// Reported and Lost are report-sample's lost_situation counts, -1 when
	// the report has none.
	Reported, Lost int64
}

// ParseSimpleperfSamples parses the samples of a simpleperf recording in
// either text form that prints each sample with its time and stack:
//
//   - `simpleperf report-sample --show-callchain` on the device (records
//     "sample:" with indented "time:", "thread_id:", "symbol:" … lines, the
//     stack's outer frames under "callchain:");
//   - `report_sample.py` on a host, in `perf script`'s layout ("comm
//     pid/tid [cpu] secs: period event:" then one "addr symbol (file)" line
//     per frame).
//
// Lines it does not know are skipped; an input with neither shape, or a
// sample without a time or a thread, is an error quoting the line.
func ParseSimpleperfSamples(b []byte) (*SimpleperfSamples, error) {
	return ReadSimpleperfSamples(bytes.NewReader(b), nil)
}

// ReadSimpleperfSamples is ParseSimpleperfSamples reading r as a stream:
// it holds a line at a time (a line longer than devtext.MaxLine is an error,
// devtext.ErrLineTooLong) and only the samples keep returns true for (nil keeps
// every one), so a report of a minute's recording of every thread, some
// hundreds of MB, costs the samples of the one thread kept.
func ReadSimpleperfSamples(r io.Reader, keep func(*StackSample) bool) (*SimpleperfSamples, error) {
	it := &lineIter{br: bufio.NewReaderSize(devtext.NewNormReader(r), 64<<10), source: SimpleperfSource}
	out := &SimpleperfSamples{Reported: -1, Lost: -1}
	if keep == nil {
		keep = func(*StackSample) bool { return true }
	}
	first, firstLine := "", 0
	for {
		ln, ok := it.next()
		if !ok {
			break
		}
		if it.n == 1 {
			first, firstLine = ln, 1
		}
		t := strings.TrimSpace(ln)
		if t == "" {
			continue
		}
		if firstLine == 0 {
			first, firstLine = ln, it.n
		}
		if t == "meta_info:" || t == "sample:" || t == "lost_situation:" || t == "context_switch:" || t == "thread:" || t == "file:" {
			return parseReportSample(it, ln, out, keep)
		}
		if _, ok := perfScriptHeader(ln); ok {
			return parsePerfScript(it, ln, out, keep)
		}
		if strings.HasPrefix(t, "Overhead") || strings.HasPrefix(t, "Children") {
			return nil, &devtext.ParseError{Source: SimpleperfSource, Line: it.n, Text: ln,
				Reason: "a simpleperf report table (samples added up), not report-sample output with each sample's time"}
		}
	}
	if it.err != nil {
		return nil, it.err
	}
	if firstLine == 0 {
		return out, nil
	}
	return nil, &devtext.ParseError{Source: SimpleperfSource, Line: 1, Text: first, Reason: "neither report-sample output nor report_sample.py output"}
}

// lineIter hands out a text's lines one at a time, each up to devtext.MaxLine.
type lineIter struct {
	br     *bufio.Reader
	source string
	n      int   // the number of the line last handed out
	err    error // why it stopped before the end: a line too long, a read error
	done   bool
	long   []byte
}

// next returns the next line without its end; false at the end of the
// text or at an error (it.err).
func (it *lineIter) next() (string, bool) {
	if it.done {
		return "", false
	}
	it.long = it.long[:0]
	for {
		chunk, err := it.br.ReadSlice('\n')
		if len(it.long)+len(chunk) > devtext.MaxLine+1 {
			it.done = true
			it.err = devtext.LineTooLong(it.source, it.n+1, append(it.long, chunk[:min(len(chunk), devtext.LineStartKept)]...))
			return "", false
		}
		switch {
		case err == bufio.ErrBufferFull:
			it.long = append(it.long, chunk...)
			continue
		case err == io.EOF:
			it.done = true
			if len(it.long)+len(chunk) == 0 {
				return "", false
			}
		case err != nil:
			it.done = true
			it.err = err
			return "", false
		}
		it.n++
		ln := string(append(it.long, chunk...))
		return strings.TrimSuffix(ln, "\n"), true
	}
}

// parseReportSample reads report-sample's records from the line head on.
func parseReportSample(it *lineIter, head string, out *SimpleperfSamples, keep func(*StackSample) bool) (*SimpleperfSamples, error) {
	p := reportParser{it: it, out: out, keep: keep}
	ln, ok := head, true
	for ; ok; ln, ok = it.next() {
		if err := p.line(ln); err != nil {
			return nil, err
		}
	}
	if it.err != nil {
		return nil, it.err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// reportParser is the state of parseReportSample between lines.
type reportParser struct {
	it   *lineIter
	out  *SimpleperfSamples
	keep func(*StackSample) bool

	rec      string // the record being read: "sample", "meta_info", …
	cur      *StackSample
	pending  StackFrame // the frame being read (file, then symbol)
	haveTime bool
	haveTID  bool
	recLine  int
	recText  string
}

// line reads one line of report-sample's output.
func (p *reportParser) line(ln string) error {
	ln = strings.TrimRight(ln, " \t")
	t := strings.TrimSpace(ln)
	if t == "" {
		return nil
	}
	if ln == t && strings.HasSuffix(t, ":") && !strings.Contains(t, " ") {
		// A record starts at the left margin: "sample:", "meta_info:" …
		if err := p.finish(); err != nil {
			return err
		}
		p.rec, p.recLine, p.recText = strings.TrimSuffix(t, ":"), p.it.n, ln
		if p.rec == "sample" {
			p.cur = &StackSample{PID: -1, TID: -1}
			p.haveTime, p.haveTID = false, false
		}
		return nil
	}
	key, val, ok := strings.Cut(t, ":")
	if !ok {
		return nil
	}
	val = strings.TrimSpace(val)
	switch p.rec {
	case "meta_info":
		p.metaInfo(key, val)
	case "lost_situation":
		return p.lostSituation(ln, key, val)
	case "sample":
		return p.sampleField(ln, key, val)
	}
	return nil
}

// count reads val, the value of key on line ln, as a count.
func (p *reportParser) count(ln, key, val string) (int64, error) {
	v, err := strconv.ParseInt(val, 10, 64)
	if err != nil || v < 0 {
		return 0, &devtext.ParseError{Source: SimpleperfSource, Line: p.it.n, Text: ln, Reason: key + " is not a count"}
	}
	return v, nil
}

// metaInfo reads a field of the meta_info record.
func (p *reportParser) metaInfo(key, val string) {
	switch key {
	case "event_type":
		p.out.Events = append(p.out.Events, val)
	case "app_package_name":
		p.out.App = val
	case "trace_offcpu":
		p.out.TraceOffCPU = val == "true"
	}
}

// lostSituation reads a field of the lost_situation record.
func (p *reportParser) lostSituation(ln, key, val string) error {
	switch key {
	case "sample_count", "lost_count":
		v, err := p.count(ln, key, val)
		if err != nil {
			return err
		}
		if key == "sample_count" {
			p.out.Reported = v
		} else {
			p.out.Lost = v
		}
	}
	return nil
}

// sampleField reads a field of a sample record: its event, time, thread
// or a part of a frame of its callchain.
func (p *reportParser) sampleField(ln, key, val string) error {
	cur := p.cur
	switch key {
	case "event_type":
		cur.Event = val
	case "time":
		v, err := p.count(ln, key, val)
		if err != nil {
			return err
		}
		cur.TimeNs, p.haveTime = v, true
	case "event_count":
		v, err := p.count(ln, key, val)
		if err != nil {
			return err
		}
		cur.Period = v
	case "thread_id":
		v, err := p.count(ln, key, val)
		if err != nil || v > 1<<31 {
			return &devtext.ParseError{Source: SimpleperfSource, Line: p.it.n, Text: ln, Reason: "thread_id is not a thread id"}
		}
		cur.TID, p.haveTID = int(v), true
	case "thread_name":
		cur.Thread = val
	case "callchain":
		p.flushFrame()
	case "vaddr_in_file":
		// Each frame starts with its address; a frame printed
		// without one starts at its file.
		p.flushFrame()
	case "file":
		if p.pending.File != "" || p.pending.Symbol != "" {
			p.flushFrame()
		}
		p.pending.File = val
	case "symbol":
		if p.pending.Symbol != "" {
			p.flushFrame()
		}
		p.pending.Symbol = val
	}
	return nil
}

// flushFrame adds the frame being read, if any, to the sample's.
func (p *reportParser) flushFrame() {
	if p.pending.Symbol != "" || p.pending.File != "" {
		p.cur.Frames = append(p.cur.Frames, p.pending)
	}
	p.pending = StackFrame{}
}

// finish ends the record being read: a sample goes to out when keep
// takes it.
func (p *reportParser) finish() error {
	if p.rec != "sample" || p.cur == nil {
		return nil
	}
	p.flushFrame()
	if !p.haveTime || !p.haveTID {
		return &devtext.ParseError{Source: SimpleperfSource, Line: p.recLine, Text: p.recText, Reason: "sample without a time or a thread_id"}
	}
	if p.keep(p.cur) {
		p.out.Samples = append(p.out.Samples, *p.cur)
	}
	p.cur = nil
	return nil
}

// perfScriptHeader reads "comm pid/tid [cpu] secs.usecs: period event:",
// the line report_sample.py starts a sample with; comm may hold spaces.
func perfScriptHeader(ln string) (StackSample, bool) {
	s := StackSample{}
	if ln == "" || ln[0] == ' ' || ln[0] == '\t' || !strings.HasSuffix(ln, ":") {
		return s, false
	}
	f := strings.Fields(strings.TrimSuffix(ln, ":"))
	if len(f) < 6 {
		return s, false
	}
	n := len(f)
	event, period, secs, cpu, ids := f[n-1], f[n-2], f[n-3], f[n-4], f[n-5]
	if !strings.HasPrefix(cpu, "[") || !strings.HasSuffix(cpu, "]") || !strings.HasSuffix(secs, ":") {
		return s, false
	}
	p, t, ok := strings.Cut(ids, "/")
	pid, err1 := strconv.Atoi(p)
	tid, err2 := strconv.Atoi(t)
	per, err3 := strconv.ParseInt(period, 10, 64)
	ns, ok2 := secondsToNs(strings.TrimSuffix(secs, ":"))
	if !ok || !ok2 || err1 != nil || err2 != nil || err3 != nil || pid < 0 || tid < 0 || per < 0 {
		return s, false
	}
	// comm is what precedes the ids, spaces kept.
	comm := strings.TrimSpace(ln[:strings.LastIndex(ln[:strings.LastIndex(ln, cpu)], ids)])
	return StackSample{TimeNs: ns, PID: pid, TID: tid, Thread: comm, Event: event, Period: per}, true
}

// secondsToNs reads "520295.965190" (any number of fraction digits up to
// nine) exactly.
func secondsToNs(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	if sec == "" || len(frac) > 9 || len(sec) > 10 {
		return 0, false
	}
	for _, c := range sec + frac {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, _ := strconv.ParseInt(sec, 10, 64)
	var f int64
	if frac != "" {
		f, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	return n*1e9 + f, true
}

// parsePerfScript reads report_sample.py's samples from the line head on.
func parsePerfScript(it *lineIter, head string, out *SimpleperfSamples, keep func(*StackSample) bool) (*SimpleperfSamples, error) {
	var cur *StackSample
	done := func() {
		if cur != nil && keep(cur) {
			out.Samples = append(out.Samples, *cur)
		}
		cur = nil
	}
	for ln, ok := head, true; ok; ln, ok = it.next() {
		ln = strings.TrimRight(ln, " \t")
		if strings.TrimSpace(ln) == "" {
			done()
			continue
		}
		if h, ok := perfScriptHeader(ln); ok {
			done()
			cur = &h
			continue
		}
		if cur == nil || (ln[0] != ' ' && ln[0] != '\t') {
			return nil, &devtext.ParseError{Source: SimpleperfSource, Line: it.n, Text: ln, Reason: "neither a sample header nor a frame"}
		}
		// "      75ddf8d7ce erb.kz (/data/app/…/base.vdex)"
		t := strings.TrimSpace(ln)
		_, rest, _ := strings.Cut(t, " ")
		fr := StackFrame{Symbol: strings.TrimSpace(rest)}
		if j := strings.LastIndex(rest, " ("); j >= 0 && strings.HasSuffix(rest, ")") {
			fr = StackFrame{Symbol: strings.TrimSpace(rest[:j]), File: rest[j+2 : len(rest)-1]}
		}
		cur.Frames = append(cur.Frames, fr)
	}
	if it.err != nil {
		return nil, it.err
	}
	done()
	return out, nil
}

// ParseSimpleperfRecordLog reads the counts simpleperf record logs when it
// stops ("Samples recorded: 44. Samples lost: 0."); ok is false when the
// text has no such line.
func ParseSimpleperfRecordLog(b []byte) (recorded, lost int64, ok bool) {
	for _, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		_, rest, found := strings.Cut(ln, "Samples recorded: ")
		if !found {
			continue
		}
		r, tail, _ := strings.Cut(rest, ".")
		r, _, _ = strings.Cut(r, " ") // "44 (cut 3)"
		_, l, _ := strings.Cut(tail, "Samples lost: ")
		l = strings.TrimSuffix(strings.TrimSpace(l), ".")
		rv, err1 := strconv.ParseInt(r, 10, 64)
		lv, err2 := strconv.ParseInt(l, 10, 64)
		if err1 == nil && err2 == nil && rv >= 0 && lv >= 0 {
			return rv, lv, true
		}
	}
	return 0, 0, false
}

// StackSymbol shortens a symbol to the function's name, the way stacks
// are folded and compared: the Java return type and parameter list of a
// dex method ("void com.x.Feed.bind(int)" → "com.x.Feed.bind") and a C++
// function's parameters ("android::Looper::pollOnce(int, int*)" →
// "android::Looper::pollOnce") are left out.
func StackSymbol(sym string) string {
	s := strings.TrimSpace(sym)
	if strings.HasSuffix(s, ")") {
		depth := 0
		for i := len(s) - 1; i >= 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				if i > 0 {
					s = strings.TrimSpace(s[:i])
				}
				break
			}
		}
	}
	if ret, name, ok := strings.Cut(s, " "); ok && javaName(ret) && javaName(name) {
		s = name
	}
	return s
}

// javaName reports a Java type or method name: letters, digits and
// _ $ . [ ] < > (the last two for <init> and <clinit>).
func javaName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		ok := c == '_' || c == '$' || c == '.' || c == '[' || c == ']' || c == '<' || c == '>' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// FoldStack writes frames (innermost first) the way flame-graph tools
// read stacks: outermost first, joined by ";", each symbol shortened by
// StackSymbol, with any ";" inside a symbol made ":".
func FoldStack(frames []StackFrame) string {
	var b strings.Builder
	for i := len(frames) - 1; i >= 0; i-- {
		if i < len(frames)-1 {
			b.WriteByte(';')
		}
		b.WriteString(strings.ReplaceAll(FrameName(frames[i]), ";", ":"))
	}
	return b.String()
}

// FrameName is a frame as stacks name it: its symbol shortened by
// StackSymbol, or for a frame without one the file it is in, in brackets
// ("[libfoo.so]"), or "[unknown]".
func FrameName(f StackFrame) string {
	if s := StackSymbol(f.Symbol); s != "" {
		return s
	}
	if f.File != "" {
		return "[" + f.File[strings.LastIndexByte(f.File, '/')+1:] + "]"
	}
	return "[unknown]"
}

// AppFrame returns the index in frames (innermost first) of the innermost
// frame of the app's own code, -1 when the stack has none: a method of a
// class in the app's package, else (for an app whose class names are
// obfuscated) code from the app's install folder (/data/app/…/<pkg>-…/: its
// base.odex, .vdex, .apk), which also holds the libraries it bundles.
func AppFrame(frames []StackFrame, pkg string) int {
	if pkg == "" {
		return -1
	}
	for i, f := range frames {
		if strings.HasPrefix(StackSymbol(f.Symbol), pkg+".") {
			return i
		}
	}
	for i, f := range frames {
		if strings.Contains(f.File, "/"+pkg+"-") || strings.Contains(f.File, "/"+pkg+"/") {
			return i
		}
	}
	return -1
}

// String is the sample in one line, for messages.
func (s StackSample) String() string {
	top := ""
	if len(s.Frames) > 0 {
		top = StackSymbol(s.Frames[0].Symbol)
	}
	return fmt.Sprintf("%s %d/%d at %d ns in %s (%d frames)", s.Thread, s.PID, s.TID, s.TimeNs, top, len(s.Frames))
}
