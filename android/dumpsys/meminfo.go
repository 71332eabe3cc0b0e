package dumpsys

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// MeminfoSource names `dumpsys meminfo <pkg>` in errors and reports.
const MeminfoSource = "dumpsys meminfo"

// ErrMeminfoNoProcess is matched (errors.Is) by the error ParseMeminfo returns
// when dumpsys answered "No process found for: <pkg>": the app is not running.
var ErrMeminfoNoProcess = errors.New("no process found")

// MeminfoNoProcessError is returned for "No process found for: <pkg>".
type MeminfoNoProcessError struct {
	Package string // as dumpsys echoed it
}

func (e *MeminfoNoProcessError) Error() string {
	return fmt.Sprintf("%s: no process found for %s", MeminfoSource, excerpt.Quote(e.Package))
}

// Is makes errors.Is(err, ErrMeminfoNoProcess) true.
func (e *MeminfoNoProcessError) Is(target error) bool { return target == ErrMeminfoNoProcess }

// Meminfo is one process's `dumpsys meminfo <pkg>` report. Every size is in
// KiB (dumpsys prints "kB" or "Kilobytes"; both mean 1024 bytes).
type Meminfo struct {
	PID     int    // from "** MEMINFO in pid N [name] **"; 0 for an excerpt without it
	Process string // the bracketed process name

	PSSKB  int64 // total PSS: the table's TOTAL "Pss Total", else App Summary "TOTAL PSS"/"TOTAL"
	RSSKB  int64 // total RSS (Android 11+): TOTAL "Rss Total", else "TOTAL RSS"; 0 when HasRSS is false
	HasRSS bool
	// SwapKB is "TOTAL SWAP PSS"/"TOTAL SWAP (KB)" from the App Summary, else
	// the TOTAL row's swap column (SwapPss Dirty, Swap Dirty or Swapped Dirty);
	// 0 when HasSwap is false (Android 4.3 and older print no swap).
	SwapKB    int64
	HasSwap   bool
	SwapIsPSS bool // the swap figure is proportional (SwapPss), not raw swapped pages

	Summary MeminfoSummary // App Summary block (Android 6+); Present false before that

	// Columns names the table's numeric columns, e.g. "Pss Total",
	// "Private Dirty", "SwapPss Dirty", "Rss Total", "Heap Size".
	Columns []string
	Rows    []MeminfoRow // the per-category table, TOTAL included, in print order
}

// MeminfoRow is one line of the per-category table ("Native Heap", ".so mmap",
// "TOTAL", ...). Values line up with Meminfo.Columns; rows such as
// "Dalvik Other" print fewer values (no heap columns), so Values may be
// shorter than Columns.
type MeminfoRow struct {
	Name   string
	Values []int64
}

// Value returns the row's value in the named column.
func (r MeminfoRow) Value(m *Meminfo, column string) (int64, bool) {
	for i, c := range m.Columns {
		if c == column && i < len(r.Values) {
			return r.Values[i], true
		}
	}
	return 0, false
}

// MeminfoSummary is the "App Summary" block, in KiB. The RSS column exists
// from Android 11 and only for some rows; an absent value is 0 with its Has
// flag false.
type MeminfoSummary struct {
	Present bool

	JavaHeapKB, NativeHeapKB, CodeKB, StackKB, GraphicsKB, PrivateOtherKB, SystemKB int64
	TotalPSSKB                                                                      int64 // "TOTAL PSS:" or (Android 6-10) "TOTAL:"

	HasRSS                                                               bool
	JavaHeapRSSKB, NativeHeapRSSKB, CodeRSSKB, StackRSSKB, GraphicsRSSKB int64
	UnknownRSSKB                                                         int64 // "Unknown:" RSS-only row
	TotalRSSKB                                                           int64
	TotalSwapKB                                                          int64 // "TOTAL SWAP PSS:" or "TOTAL SWAP (KB):"
	HasTotalSwap, TotalSwapIsPSS                                         bool
}

// Row returns the table row with that name ("TOTAL", "Native Heap", ...).
func (m *Meminfo) Row(name string) (MeminfoRow, bool) {
	for _, r := range m.Rows {
		if r.Name == name {
			return r, true
		}
	}
	return MeminfoRow{}, false
}

// ParseMeminfo parses the output of `dumpsys meminfo <pkg>` in every layout
// seen on devices: Android 4.3 ("Pss / Shared Dirty"), 4.4-5 ("Pss Total /
// Swapped Dirty"), 6-10 (App Summary with "TOTAL: n TOTAL SWAP (KB): m"),
// 11+ (Rss Total column, "TOTAL PSS/RSS/SWAP"), and the 11-column `-a -d`
// table. It also accepts excerpts holding only the table or only the App
// Summary. When the output covers several processes it returns the first;
// use ParseMeminfoAll for all of them.
//
// "No process found for: <pkg>" returns a *MeminfoNoProcessError. Output with
// neither a TOTAL row nor an App Summary total returns a *devtext.ParseError.
func ParseMeminfo(b []byte) (*Meminfo, error) {
	all, err := ParseMeminfoAll(b)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// ParseMeminfoAll is ParseMeminfo for output that holds one
// "** MEMINFO in pid ..." block per process (several processes share a name,
// or dumpsys was given several pids). Blocks come back in print order.
func ParseMeminfoAll(b []byte) ([]*Meminfo, error) {
	lines := strings.Split(string(devtext.Normalize(b)), "\n")
	var (
		out []*Meminfo
		cur []string
		off = 0 // line number of cur[0], 0-based
	)
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		m, err := memParseBlock(cur, off)
		if err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if pkg, ok := strings.CutPrefix(t, "No process found for:"); ok {
			return nil, &MeminfoNoProcessError{Package: strings.TrimSpace(pkg)}
		}
		if strings.HasPrefix(t, "** MEMINFO in pid ") && memBlockHasContent(cur) {
			if err := flush(); err != nil {
				return nil, err
			}
			cur, off = nil, i
		}
		if cur == nil {
			off = i
		}
		cur = append(cur, ln)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &devtext.ParseError{Source: MeminfoSource, Reason: "empty output"}
	}
	return out, nil
}

// memBlockHasContent reports whether lines already hold a MEMINFO header, so
// a second header starts a new block rather than the first one.
func memBlockHasContent(lines []string) bool {
	for _, ln := range lines {
		if strings.HasPrefix(strings.TrimSpace(ln), "** MEMINFO in pid ") {
			return true
		}
	}
	return false
}

type memColumn struct {
	name string
	end  int // byte offset just past the column's right-aligned label
}

// memBlock is the state of memParseBlock while it reads one process's
// block: the table's columns and which part of the block a line is in.
type memBlock struct {
	off        int // line number of the block's first line, less one
	m          *Meminfo
	cols       []memColumn
	inTable    bool
	inSummary  bool
	sumRSSEnd  int // end offset of the "Rss(KB)" label
	sumPSSEnd  int
	tableTotal bool
}

func memParseBlock(lines []string, off int) (*Meminfo, error) {
	p := memBlock{off: off, m: &Meminfo{}, sumRSSEnd: -1, sumPSSEnd: -1}
	for i, ln := range lines {
		if err := p.line(lines, i, ln); err != nil {
			return nil, err
		}
	}
	if !p.tableTotal && !p.m.Summary.Present {
		return nil, &devtext.ParseError{Source: MeminfoSource, Reason: "no TOTAL row and no App Summary total (truncated capture?)"}
	}
	p.m.setTotals(p.tableTotal)
	return p.m, nil
}

// line reads lines[i], ln.
func (p *memBlock) line(lines []string, i int, ln string) error {
	lineNo := p.off + i + 1
	t := strings.TrimSpace(ln)
	switch {
	case strings.HasPrefix(t, "** MEMINFO in pid "):
		return p.pidLine(ln, t, lineNo)
	case t == "App Summary":
		p.inSummary, p.inTable = true, false
		return nil
	case strings.HasPrefix(t, "------"):
		p.dashes(lines, i)
		return nil
	}
	if p.inSummary {
		return p.summaryLine(ln, t, lineNo)
	}
	if p.inTable {
		return p.tableLine(ln, t, lineNo)
	}
	return nil
}

// pidLine reads "** MEMINFO in pid 1234 [com.example] **".
func (p *memBlock) pidLine(ln, t string, lineNo int) error {
	rest := strings.TrimPrefix(t, "** MEMINFO in pid ")
	f := strings.Fields(rest)
	if len(f) == 0 {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: "no pid"}
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: "bad pid"}
	}
	p.m.PID = pid
	if a, b := strings.IndexByte(rest, '['), strings.LastIndexByte(rest, ']'); a >= 0 && b > a {
		p.m.Process = rest[a+1 : b]
	}
	return nil
}

// dashes reads the dashes under the table's header, lines[i]: the table
// starts below them.
func (p *memBlock) dashes(lines []string, i int) {
	m := p.m
	if p.inSummary || p.tableTotal || m.Summary.Present {
		return // later blocks (Native Allocations) have dashes too
	}
	// The two lines above the dashes name the columns, right-aligned.
	if i >= 2 {
		p.cols = memColumns(lines[i-2], lines[i-1])
	} else if i == 1 {
		p.cols = memColumns("", lines[0])
	}
	if len(p.cols) > 0 {
		p.inTable = true
		m.Columns = m.Columns[:0]
		for _, c := range p.cols {
			m.Columns = append(m.Columns, c.name)
		}
	}
}

// summaryLine reads a line of the App Summary: its header, a row or its
// TOTAL, which ends it.
func (p *memBlock) summaryLine(ln, t string, lineNo int) error {
	if strings.Contains(t, "Pss(KB)") {
		p.sumPSSEnd = strings.Index(ln, "Pss(KB)") + len("Pss(KB)")
		if j := strings.Index(ln, "Rss(KB)"); j >= 0 {
			p.sumRSSEnd = j + len("Rss(KB)")
		}
		return nil
	}
	if t == "" {
		return nil
	}
	if strings.HasPrefix(t, "TOTAL") {
		if err := memSummaryTotals(&p.m.Summary, ln, lineNo); err != nil {
			return err
		}
		p.m.Summary.Present = true
		p.inSummary = false
		return nil
	}
	return memSummaryRow(&p.m.Summary, ln, lineNo, p.sumPSSEnd, p.sumRSSEnd)
}

// tableLine reads a row of the table; a blank line or the TOTAL row ends
// it.
func (p *memBlock) tableLine(ln, t string, lineNo int) error {
	if t == "" {
		p.inTable = false
		return nil
	}
	name, vals, ok := memTableRow(t)
	if !ok {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: "table row without numbers"}
	}
	if len(vals) > len(p.cols) {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: fmt.Sprintf("%d values for %d columns", len(vals), len(p.cols))}
	}
	p.m.Rows = append(p.m.Rows, MeminfoRow{Name: name, Values: vals})
	if name == "TOTAL" {
		p.tableTotal = true
		p.inTable = false
	}
	return nil
}

// setTotals sets PSS, RSS and swap from the table's TOTAL row (when
// tableTotal) and the App Summary's.
func (m *Meminfo) setTotals(tableTotal bool) {
	if tableTotal {
		total, _ := m.Row("TOTAL")
		if v, ok := total.Value(m, "Pss Total"); ok {
			m.PSSKB = v
		} else if v, ok := total.Value(m, "Pss"); ok {
			m.PSSKB = v
		}
		if v, ok := total.Value(m, "Rss Total"); ok {
			m.RSSKB, m.HasRSS = v, true
		}
		for _, c := range []string{"SwapPss Dirty", "Swap Dirty", "Swapped Dirty"} {
			if v, ok := total.Value(m, c); ok {
				m.SwapKB, m.HasSwap, m.SwapIsPSS = v, true, c == "SwapPss Dirty"
				break
			}
		}
	}
	s := &m.Summary
	if s.Present {
		if !tableTotal {
			m.PSSKB = s.TotalPSSKB
		}
		if !m.HasRSS && s.HasRSS {
			m.RSSKB, m.HasRSS = s.TotalRSSKB, true
		}
		if s.HasTotalSwap {
			m.SwapKB, m.HasSwap, m.SwapIsPSS = s.TotalSwapKB, true, s.TotalSwapIsPSS
		}
	}
}

// memColumns names the table columns from its two header lines. Labels are
// right-aligned, so a top word belongs to the bottom word ending at the same
// offset ("Pss" over "Total" → "Pss Total"; Android 4.3 has "Pss" alone).
func memColumns(top, bottom string) []memColumn {
	var cols []memColumn
	for _, w := range memWords(bottom) {
		cols = append(cols, memColumn{name: w.name, end: w.end})
	}
	for _, w := range memWords(top) {
		for i := range cols {
			if cols[i].end == w.end {
				cols[i].name = w.name + " " + cols[i].name
			}
		}
	}
	return cols
}

func memWords(s string) []memColumn {
	var out []memColumn
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		out = append(out, memColumn{name: s[i:j], end: j})
		i = j
	}
	return out
}

// memTableRow splits "  Native Heap   468807   449876 ..." into its label
// and trailing numbers.
func memTableRow(t string) (string, []int64, bool) {
	f := strings.Fields(t)
	n := len(f)
	for n > 0 {
		if _, err := strconv.ParseInt(f[n-1], 10, 64); err != nil {
			break
		}
		n--
	}
	if n == len(f) || n == 0 {
		return "", nil, false
	}
	vals := make([]int64, 0, len(f)-n)
	for _, s := range f[n:] {
		v, _ := strconv.ParseInt(s, 10, 64)
		vals = append(vals, v)
	}
	return strings.Join(f[:n], " "), vals, true
}

// memSummaryRow parses "           Java Heap:     9584        21136". A value
// whose right edge is nearer the Rss(KB) label than the Pss(KB) one is RSS
// ("Unknown:" has only RSS; "Private Other:" only PSS).
func memSummaryRow(s *MeminfoSummary, ln string, lineNo, pssEnd, rssEnd int) error {
	colon := strings.IndexByte(ln, ':')
	if colon < 0 {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: "App Summary row without ':'"}
	}
	label := strings.TrimSpace(ln[:colon])
	var pss, rss int64
	var hasPSS, hasRSS bool
	for _, w := range memWords(ln[colon+1:]) {
		v, err := strconv.ParseInt(w.name, 10, 64)
		if err != nil {
			return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: fmt.Sprintf("bad number %s", excerpt.Quote(w.name))}
		}
		end := colon + 1 + w.end
		isRSS := rssEnd >= 0 && (pssEnd < 0 || memAbs(end-rssEnd) < memAbs(end-pssEnd))
		if isRSS {
			rss, hasRSS = v, true
		} else {
			pss, hasPSS = v, true
		}
	}
	if !hasPSS && !hasRSS {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: "App Summary row without a value"}
	}
	if hasRSS {
		s.HasRSS = true
	}
	switch label {
	case "Java Heap":
		s.JavaHeapKB, s.JavaHeapRSSKB = pss, rss
	case "Native Heap":
		s.NativeHeapKB, s.NativeHeapRSSKB = pss, rss
	case "Code":
		s.CodeKB, s.CodeRSSKB = pss, rss
	case "Stack":
		s.StackKB, s.StackRSSKB = pss, rss
	case "Graphics":
		s.GraphicsKB, s.GraphicsRSSKB = pss, rss
	case "Private Other":
		s.PrivateOtherKB = pss
	case "System":
		s.SystemKB = pss
	case "Unknown":
		s.UnknownRSSKB = rss
	}
	return nil
}

func memAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// memSummaryTotals parses the App Summary's last line, label/value pairs such
// as "TOTAL PSS:  3229008   TOTAL RSS:  1683588   TOTAL SWAP PSS:  1601537"
// or (Android 6-10) "TOTAL:   145991      TOTAL SWAP (KB):    22236".
func memSummaryTotals(s *MeminfoSummary, ln string, lineNo int) error {
	rest := ln
	found := false
	for {
		colon := strings.IndexByte(rest, ':')
		if colon < 0 {
			break
		}
		label := strings.TrimSpace(rest[:colon])
		rest = rest[colon+1:]
		f := strings.Fields(rest)
		if len(f) == 0 {
			return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: fmt.Sprintf("%s without a value", excerpt.Quote(label))}
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: fmt.Sprintf("bad number %s after %s", excerpt.Quote(f[0]), excerpt.Quote(label))}
		}
		rest = rest[strings.Index(rest, f[0])+len(f[0]):]
		found = true
		switch label {
		case "TOTAL", "TOTAL PSS":
			s.TotalPSSKB = v
		case "TOTAL RSS":
			s.TotalRSSKB, s.HasRSS = v, true
		case "TOTAL SWAP PSS":
			s.TotalSwapKB, s.HasTotalSwap, s.TotalSwapIsPSS = v, true, true
		case "TOTAL SWAP (KB)":
			s.TotalSwapKB, s.HasTotalSwap = v, true
		}
	}
	if !found {
		return &devtext.ParseError{Source: MeminfoSource, Line: lineNo, Text: ln, Reason: "App Summary TOTAL line without values"}
	}
	return nil
}

// MeminfoProcessPSS is one row of `dumpsys meminfo` (no arguments) "Total PSS
// by process:".
type MeminfoProcessPSS struct {
	PSSKB int64
	Name  string
	PID   int
}

// ParseMeminfoTotalPSSByProcess parses the "Total PSS by process:" list that
// `dumpsys meminfo` without a package prints ("    96302 kB: system (pid 728)").
// The list ends at the first blank line or another section; a "..." line
// (published excerpts) ends it too.
func ParseMeminfoTotalPSSByProcess(b []byte) ([]MeminfoProcessPSS, error) {
	const src = "dumpsys meminfo (Total PSS by process)"
	lines := strings.Split(string(devtext.Normalize(b)), "\n")
	var out []MeminfoProcessPSS
	in := false
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if !in {
			in = t == "Total PSS by process:"
			continue
		}
		if t == "" || t == "..." || !strings.Contains(t, ": ") {
			break
		}
		head, tail, _ := strings.Cut(t, ": ")
		num := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(head, "kB"), "K"))
		num = strings.ReplaceAll(num, ",", "") // Android 8+ prints thousands separators
		v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil {
			return nil, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "bad PSS"}
		}
		p := MeminfoProcessPSS{PSSKB: v, Name: tail}
		if j := strings.LastIndex(tail, " (pid "); j >= 0 && strings.HasSuffix(tail, ")") {
			pidText := strings.TrimSuffix(tail[j+len(" (pid "):], ")")
			pidText, _, _ = strings.Cut(pidText, " ") // "(pid 1234 / activities)"
			pid, err := strconv.Atoi(pidText)
			if err != nil {
				return nil, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "bad pid"}
			}
			p.Name, p.PID = tail[:j], pid
		}
		out = append(out, p)
	}
	if !in {
		return nil, &devtext.ParseError{Source: src, Reason: `no "Total PSS by process:" section`}
	}
	return out, nil
}
