package profiler

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"github.com/perfgate/perfgate/android/devtext"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ARTTraceSource names ART's method trace in errors.
const ARTTraceSource = "ART method trace"

// maxResample bounds the samples Resample makes of one stack: a day at
// one a millisecond.
const maxResample = 86_400_000

// ARTMethod is one method of an ART method trace's *methods section.
type ARTMethod struct {
	// Class is the declaring class ("com.x.Feed$1"), Name the method's,
	// Signature its descriptor ("(I)V") and File its source file.
	Class, Name, Signature, File string
}

// String is the method as stacks name it: "com.x.Feed$1.run".
func (m ARTMethod) String() string { return m.Class + "." + m.Name }

// ARTTrace is an ART method trace file, the format `am profile start
// [--sampling <µs>] <process> <file>` and Debug.startMethodTracing write
// (ART's trace.cc, versions 2 and 3): a text header (*version, the
// key=value lines, *threads, *methods, *end) and then binary records, each a
// thread's method entry or exit with its times.
type ARTTrace struct {
	// Version is 2 (one clock) or 3 (one or both clocks, the record size
	// in the binary header); Clock is "wall", "thread-cpu" or "dual".
	Version int
	Clock   string
	// StartUs is when tracing began, in µs on the clock ART's MicroTime
	// reads (CLOCK_MONOTONIC); every record's wall time counts from it.
	StartUs uint64
	// ElapsedUs is how long the trace ran (elapsed-time-usec).
	ElapsedUs uint64
	// Overflow is set when the trace buffer filled up and later records
	// were dropped (data-file-overflow=true).
	Overflow bool
	// PID is the traced process (pid=), -1 when not given.
	PID     int
	Threads map[int]string
	// Methods are the *methods section by method id (the id with the
	// action bits clear).
	Methods map[uint32]ARTMethod
	// Samples are the stacks the records add up to: after each run of
	// records of one thread at one wall time (a sampling profiler's
	// sample, or one call or return when tracing every method), that
	// thread's stack. A sampling profiler writes records only when a
	// thread's stack changed, so a stack holds until the thread's next
	// sample (see Resample). Without a wall clock there are none.
	Samples []StackSample

	// changes are the samples with the empty stacks left in: a thread
	// whose every frame returned.
	changes []StackSample
}

// Resample turns the trace's stack changes into one sample per interval of
// a sampling profiler that sampled every intervalUs µs: each stack counts
// from its change to the thread's next change (or the end of the trace),
// as the samples the profiler took and did not write because nothing
// changed.
func (t *ARTTrace) Resample(intervalUs int64) []StackSample {
	if intervalUs <= 0 {
		return t.Samples
	}
	step := intervalUs * 1000
	end := int64(t.StartUs+t.ElapsedUs) * 1000
	var out []StackSample
	for i, s := range t.changes {
		next := end
		for _, n := range t.changes[i+1:] {
			if n.TID == s.TID {
				next = n.TimeNs
				break
			}
		}
		if len(s.Frames) == 0 {
			continue
		}
		// One sample at the change, one every step until the next; a
		// stack held for longer than a day is not real.
		for k, at := 0, s.TimeNs; k == 0 || at < next && k < maxResample; k, at = k+1, at+step {
			x := s
			x.TimeNs = at
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(a, b StackSample) int { return cmp.Compare(a.TimeNs, b.TimeNs) })
	return out
}

// ParseARTTrace reads an ART method trace. A file cut short keeps the
// whole records before the cut; a malformed header is an error quoting the
// line.
func ParseARTTrace(b []byte) (*ARTTrace, error) {
	t := &ARTTrace{PID: -1, Threads: map[int]string{}, Methods: map[uint32]ARTMethod{}}
	end := bytes.Index(b, []byte("\n*end\n"))
	if !bytes.HasPrefix(b, []byte("*version\n")) || end < 0 {
		first, _, _ := bytes.Cut(b, []byte("\n"))
		return nil, &devtext.ParseError{Source: ARTTraceSource, Line: 1, Text: string(first), Reason: "no *version … *end header"}
	}
	if err := t.readHeader(string(b[:end+len("\n*end")])); err != nil {
		return nil, err
	}
	data := b[end+len("\n*end\n"):]
	offset, size, err := t.readDataHeader(data)
	if err != nil {
		return nil, err
	}
	wall := t.Clock == "wall" || t.Clock == "dual"
	if !wall {
		return t, nil
	}
	wallAt := 6
	if size == 14 {
		wallAt = 10 // dual: thread metrics.CPU time, then wall time
	}
	t.readRecords(data[offset:], size, wallAt)
	return t, nil
}

// artSections reads a line of the text header's sections, by name; each
// returns why the line is malformed, or "".
var artSections = map[string]func(t *ARTTrace, ln string) string{
	"version": (*ARTTrace).versionLine,
	"threads": (*ARTTrace).threadLine,
	"methods": (*ARTTrace).methodLine,
}

// readHeader reads the text header, "*version" to "*end", and checks its
// version.
func (t *ARTTrace) readHeader(text string) error {
	section := ""
	for i, ln := range strings.Split(text, "\n") {
		if strings.HasPrefix(ln, "*") {
			section = ln[1:]
			continue
		}
		if read := artSections[section]; read != nil {
			if why := read(t, ln); why != "" {
				return &devtext.ParseError{Source: ARTTraceSource, Line: i + 1, Text: ln, Reason: why}
			}
		}
	}
	if t.Version != 2 && t.Version != 3 {
		return &devtext.ParseError{Source: ARTTraceSource, Line: 2, Text: strconv.Itoa(t.Version), Reason: "version 2 or 3 expected (the streaming formats are not read)"}
	}
	if t.Clock == "" {
		t.Clock = "thread-cpu" // version 2 files written before the clock line existed
	}
	return nil
}

// versionLine reads a line of *version: the version, then key=value lines.
func (t *ARTTrace) versionLine(ln string) string {
	if k, v, ok := strings.Cut(ln, "="); ok {
		switch k {
		case "clock":
			t.Clock = v
		case "data-file-overflow":
			t.Overflow = v == "true"
		case "elapsed-time-usec":
			if n, err := strconv.ParseUint(v, 10, 63); err == nil {
				t.ElapsedUs = n
			}
		case "pid":
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				t.PID = n
			}
		}
		return ""
	}
	n, err := strconv.Atoi(ln)
	if err != nil || t.Version != 0 {
		return "not a version number or a key=value line"
	}
	t.Version = n
	return ""
}

// threadLine reads a line of *threads: tid, tab, name.
func (t *ARTTrace) threadLine(ln string) string {
	id, name, ok := strings.Cut(ln, "\t")
	tid, err := strconv.Atoi(id)
	if !ok || err != nil || tid < 0 {
		return "not a thread line (tid, tab, name)"
	}
	t.Threads[tid] = name
	return ""
}

// methodLine reads a line of *methods: id, class, name, signature and
// maybe file, tab-separated.
func (t *ARTTrace) methodLine(ln string) string {
	// ART prints the id with %#x: "0x8", but "0" for the first.
	f := strings.Split(ln, "\t")
	id, err := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 32)
	if len(f) < 4 || err != nil {
		return "not a method line (0xid, class, name, signature, file)"
	}
	m := ARTMethod{Class: f[1], Name: f[2], Signature: f[3]}
	if len(f) > 4 {
		m.File = f[4]
	}
	t.Methods[uint32(id)&^3] = m
	return ""
}

// readDataHeader reads the "SLOW" header of the binary data after *end
// into t.StartUs and returns where its records start and their size.
func (t *ARTTrace) readDataHeader(data []byte) (offset, size int, err error) {
	if len(data) < 16 || binary.LittleEndian.Uint32(data) != 0x574f4c53 {
		return 0, 0, &devtext.ParseError{Source: ARTTraceSource, Line: 0, Text: fmt.Sprintf("% x", data[:min(len(data), 8)]), Reason: `no "SLOW" data header after *end`}
	}
	version := int(binary.LittleEndian.Uint16(data[4:]))
	offset = int(binary.LittleEndian.Uint16(data[6:]))
	t.StartUs = binary.LittleEndian.Uint64(data[8:])
	size = 10 // version 2: tid u16, method u32, one u32 time
	if version == 3 && len(data) >= 18 {
		size = int(binary.LittleEndian.Uint16(data[16:]))
	}
	if size != 10 && size != 14 || offset < 16 || offset > len(data) || t.StartUs > math.MaxInt64/1000-math.MaxUint32 {
		return 0, 0, &devtext.ParseError{Source: ARTTraceSource, Line: 0, Text: fmt.Sprintf("version %d, header %d bytes, records of %d", version, offset, size), Reason: "a data header ART does not write"}
	}
	return offset, size, nil
}

// readRecords replays the method entries and exits of recs (records of
// size bytes, the wall time at wallAt) into each thread's stack, and
// keeps a sample each time a thread's stack changes.
func (t *ARTTrace) readRecords(recs []byte, size, wallAt int) {
	stacks := map[int][]string{}
	n := len(recs) / size
	for i := 0; i < n; i++ {
		r := recs[i*size : (i+1)*size]
		tid := int(binary.LittleEndian.Uint16(r))
		mv := binary.LittleEndian.Uint32(r[2:])
		at := binary.LittleEndian.Uint32(r[wallAt:])
		name := "0x" + strconv.FormatUint(uint64(mv&^3), 16)
		if m, ok := t.Methods[mv&^3]; ok {
			name = m.String()
		}
		st := artStep(stacks[tid], name, mv&3 == 0)
		stacks[tid] = st
		// A run of records of one thread at one time is one sample.
		if i+1 < n {
			next := recs[(i+1)*size : (i+2)*size]
			if int(binary.LittleEndian.Uint16(next)) == tid && binary.LittleEndian.Uint32(next[wallAt:]) == at {
				continue
			}
		}
		var frames []StackFrame
		for k := len(st) - 1; k >= 0; k-- {
			frames = append(frames, StackFrame{Symbol: st[k]})
		}
		s := StackSample{TimeNs: int64(t.StartUs+uint64(at)) * 1000, PID: t.PID, TID: tid, Thread: t.Threads[tid], Frames: frames}
		t.changes = append(t.changes, s)
		if len(frames) > 0 {
			t.Samples = append(t.Samples, s)
		}
	}
}

// artStep returns a thread's stack st after it entered (entered) or left
// the method name.
func artStep(st []string, name string, entered bool) []string {
	if entered {
		return append(st, name)
	}
	k := len(st) - 1
	if k < 0 {
		return st
	}
	if st[k] == name {
		return st[:k] // returned or unwound
	}
	// An exit of a method the stack does not end with: the trace began
	// inside it. Drop back to its frame if it is there.
	for k >= 0 && st[k] != name {
		k--
	}
	return st[:max(k, 0)]
}
