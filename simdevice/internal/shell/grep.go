package shell

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// grepOpts are the parsed flags of one grep.
type grepOpts struct {
	mode                     byte // 'G' basic, 'E' extended, 'F' fixed
	ignoreCase, invert, word bool
	line, count, quiet, only bool
	number, list, noName     bool
	withName, silent         bool
	max                      int
	after, before            int // -A, -B (-C sets both)
	patterns                 []string
	files                    []string
}

// parseGrep reads grep's flags; several -e add patterns.
func parseGrep(args []string, mode byte) (grepOpts, error) {
	o := grepOpts{mode: mode, max: -1}
	after, before, both := -1, -1, 0
	if o.mode == 0 {
		o.mode = 'G'
	}
	ops, err := scanFlags(args, func(c byte, value func() (string, error)) error {
		if f := grepSwitches[c]; f != nil {
			*f(&o) = true
			return nil
		}
		switch c {
		case 'E', 'F', 'G':
			o.mode = c
			return nil
		case 'e', 'm', 'A', 'B', 'C':
		default:
			return usageError("Unknown option '" + string(c) + "'")
		}
		v, err := value()
		if err != nil {
			return err
		}
		if c == 'e' {
			o.patterns = append(o.patterns, v)
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return usageError("Not integer '" + v + "'")
		}
		switch c {
		case 'm':
			o.max = n
		case 'A':
			after = n
		case 'B':
			before = n
		case 'C':
			both = n
		}
		return nil
	})
	if err != nil {
		return o, err
	}
	// -A and -B win over -C whatever their order.
	o.after, o.before = both, both
	if after >= 0 {
		o.after = after
	}
	if before >= 0 {
		o.before = before
	}
	if len(o.patterns) == 0 {
		if len(ops) == 0 {
			return o, usageError("Needs 1 argument")
		}
		o.patterns, ops = []string{ops[0]}, ops[1:]
	}
	// A pattern with newlines is several patterns, as POSIX says.
	var pats []string
	for _, p := range o.patterns {
		pats = append(pats, strings.Split(p, "\n")...)
	}
	o.patterns = pats
	o.files = ops
	return o, nil
}

// grepSwitches are grep's flags without a value, each the option it turns
// on.
var grepSwitches = map[byte]func(o *grepOpts) *bool{
	'i': func(o *grepOpts) *bool { return &o.ignoreCase },
	'v': func(o *grepOpts) *bool { return &o.invert },
	'w': func(o *grepOpts) *bool { return &o.word },
	'x': func(o *grepOpts) *bool { return &o.line },
	'c': func(o *grepOpts) *bool { return &o.count },
	'q': func(o *grepOpts) *bool { return &o.quiet },
	'o': func(o *grepOpts) *bool { return &o.only },
	'n': func(o *grepOpts) *bool { return &o.number },
	'l': func(o *grepOpts) *bool { return &o.list },
	'h': func(o *grepOpts) *bool { return &o.noName },
	'H': func(o *grepOpts) *bool { return &o.withName },
	's': func(o *grepOpts) *bool { return &o.silent },
}

// compileGrep turns the patterns into one Go regexp.
func compileGrep(o grepOpts) (*regexp.Regexp, error) {
	alts := make([]string, len(o.patterns))
	for i, p := range o.patterns {
		switch o.mode {
		case 'F':
			alts[i] = regexp.QuoteMeta(p)
		case 'E':
			alts[i] = ereToGo(p)
		default:
			alts[i] = breToGo(p)
		}
	}
	re := "(?:" + strings.Join(alts, ")|(?:") + ")"
	if o.line {
		re = "^(?:" + re + ")$"
	}
	if o.ignoreCase {
		re = "(?i)" + re
	}
	return regexp.Compile(re)
}

// breToGo translates a POSIX basic regular expression into Go syntax: in a
// BRE, \( \) \{ \} \| \+ \? are operators and the bare characters literal.
func breToGo(p string) string {
	var b strings.Builder
	start := true // where a '*' is literal
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '[':
			end := bracketEnd(p, i)
			b.WriteString(p[i:end])
			i = end - 1
			start = false
			continue
		case c == '\\' && i+1 < len(p):
			i++
			switch n := p[i]; n {
			case '(', ')', '{', '}', '|', '+', '?':
				b.WriteByte(n)
				start = n == '(' || n == '|'
				continue
			case '<', '>':
				b.WriteString(`\b`)
			default:
				b.WriteString(escapeFor(n))
			}
		case c == '*' && start:
			b.WriteString(`\*`)
		case strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		start = c == '^' && b.Len() == 1
	}
	return b.String()
}

// ereToGo translates a POSIX extended regular expression: the syntax is
// Go's except for \< and \> word boundaries and bracket expressions.
func ereToGo(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '[':
			end := bracketEnd(p, i)
			b.WriteString(p[i:end])
			i = end - 1
		case c == '\\' && i+1 < len(p):
			i++
			if p[i] == '<' || p[i] == '>' {
				b.WriteString(`\b`)
			} else {
				b.WriteString(escapeFor(p[i]))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapeFor keeps a backslash escape Go understands and makes any other
// escaped character literal, as POSIX regex does.
func escapeFor(n byte) string {
	if strings.IndexByte("dDsSwWbB", n) >= 0 {
		return `\` + string(n)
	}
	return regexp.QuoteMeta(string(n))
}

// bracketEnd returns the index just past the bracket expression opening at
// p[i], where a ']' first in the list is literal. An unclosed bracket ends
// the pattern (and fails to compile, as it should).
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for j < len(p) {
		if p[j] == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '=' || p[j+1] == '.') {
			if k := strings.Index(p[j+2:], string(p[j+1])+"]"); k >= 0 {
				j += k + 4
				continue
			}
		}
		if p[j] == ']' {
			return j + 1
		}
		j++
	}
	return len(p)
}

// matched is what grepMatches returns for a line that matches when the
// spans are not wanted.
var matched = [][]int{{0, 0}}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// grepMatches returns the spans of line that count as matches under -w.
// Without spans (only false) it tells only whether the line matches: a
// single empty span when it does.
func grepMatches(re *regexp.Regexp, line string, word, spans bool) [][]int {
	if !word && !spans {
		if re.MatchString(line) {
			return matched
		}
		return nil
	}
	all := re.FindAllStringIndex(line, -1)
	if !word {
		return all
	}
	var keep [][]int
	for _, m := range all {
		if (m[0] == 0 || !isWordByte(line[m[0]-1])) && (m[1] == len(line) || !isWordByte(line[m[1]])) {
			keep = append(keep, m)
		}
	}
	if len(keep) == 0 && len(all) > 0 {
		// A match bounded wrongly may hide a shorter one that is bounded
		// right; try every start position.
		for s := 1; s < len(line); s++ {
			if isWordByte(line[s-1]) {
				continue
			}
			if m := re.FindStringIndex(line[s:]); m != nil {
				a, b := m[0]+s, m[1]+s
				if (a == 0 || !isWordByte(line[a-1])) && (b == len(line) || !isWordByte(line[b])) {
					keep = append(keep, []int{a, b})
					break
				}
			}
		}
	}
	return keep
}

// grep implements toybox grep's common flags; exit status 0 when a line was
// selected, 1 when none was, 2 on trouble.
func (p *proc) grep(mode string) int {
	var m byte
	if mode != "" {
		m = mode[0]
	}
	o, err := parseGrep(p.args[1:], m)
	if err != nil {
		p.errf("grep: %v\n", err)
		return 2
	}
	re, err := compileGrep(o)
	if err != nil {
		p.errf("grep: bad REGEX '%s': %v\n", strings.Join(o.patterns, "\n"), err)
		return 2
	}
	files := inputs(o.files)
	w := bufio.NewWriter(p.stdout)
	defer w.Flush()
	g := &grepper{p: p, o: o, re: re, w: w, showName: (len(files) > 1 || o.withName) && !o.noName}
	trouble := false
	for _, f := range files {
		r, err := p.lineReader(f)
		if err != nil {
			if !o.silent {
				w.Flush()
				p.errf("grep: %s: %s\n", f, errText(err))
			}
			trouble = true
			continue
		}
		if code, done := g.file(f, r); done {
			return code
		}
	}
	switch {
	case trouble && !(o.quiet && g.selected):
		return 2
	case g.selected:
		return 0
	}
	return 1
}

// grepper is one grep over its inputs.
type grepper struct {
	p        *proc
	o        grepOpts
	re       *regexp.Regexp
	w        *bufio.Writer
	showName bool
	selected bool // a line was selected
	quit     bool // -q and a line was selected: nothing more to do
	// The current file.
	name               string
	count              int
	held               []string // up to o.before lines before the next match
	lastOut, afterLeft int
}

// file greps one input; done with the exit status when grep ends there.
func (g *grepper) file(f string, r *bufio.Reader) (code int, done bool) {
	o := &g.o
	g.name = f
	if f == "-" {
		g.name = "(standard input)"
	}
	g.count, g.held, g.lastOut, g.afterLeft = 0, nil, -1, 0
	for i := 0; ; i++ {
		if f == "-" && g.w.Buffered() > 0 {
			// Lines from a stream (logcat | grep) go out as they
			// match: at the latest before grep waits for more input.
			if b, _ := r.Peek(r.Buffered()); bytes.IndexByte(b, '\n') < 0 && g.w.Flush() != nil {
				return 2, true
			}
		}
		line, err := r.ReadString('\n')
		if line == "" && err != nil {
			break
		}
		if !g.line(i, strings.TrimSuffix(line, "\n")) {
			break
		}
	}
	if g.quit {
		return 0, true
	}
	if g.p.ctx.Err() != nil {
		return 130, true
	}
	switch {
	case o.list && g.count > 0:
		fmt.Fprintln(g.w, g.name)
	case o.count && g.showName:
		fmt.Fprintf(g.w, "%s:%d\n", g.name, g.count)
	case o.count:
		fmt.Fprintln(g.w, g.count)
	}
	return 0, false
}

// prefix is what goes before line i's text: the file's name and the line
// number, as asked, each followed by sep.
func (g *grepper) prefix(i int, sep string) string {
	s := ""
	if g.showName {
		s = g.name + sep
	}
	if g.o.number {
		s += strconv.Itoa(i+1) + sep
	}
	return s
}

// line takes line i of the current file; false to stop reading it.
func (g *grepper) line(i int, line string) bool {
	o := &g.o
	ms := grepMatches(g.re, line, o.word, o.only && !o.invert)
	if (len(ms) > 0) == o.invert || o.max >= 0 && g.count >= o.max {
		if o.max >= 0 && g.count >= o.max && g.afterLeft == 0 {
			return false
		}
		if g.afterLeft > 0 && !o.count && !o.list {
			fmt.Fprintf(g.w, "%s%s\n", g.prefix(i, "-"), line)
			g.lastOut = i
			g.afterLeft--
		} else if o.before > 0 {
			g.held = append(g.held, g.prefix(i, "-")+line)
			if len(g.held) > o.before {
				g.held = g.held[1:]
			}
		}
		return true
	}
	g.count++
	g.selected = true
	if o.quiet {
		g.quit = true
		return false
	}
	if o.count || o.list {
		return true
	}
	g.printMatch(i, line, ms)
	return true
}

// printMatch prints a selected line (or its matches, with -o) after the
// context lines held before it.
func (g *grepper) printMatch(i int, line string, ms [][]int) {
	o := &g.o
	ctxOut := o.after > 0 || o.before > 0
	if ctxOut && g.lastOut >= 0 && i-len(g.held) > g.lastOut+1 {
		fmt.Fprintln(g.w, "--")
	}
	for _, h := range g.held {
		fmt.Fprintln(g.w, h)
	}
	g.held = g.held[:0]
	if o.only && !o.invert {
		for _, mm := range ms {
			if mm[1] > mm[0] {
				fmt.Fprintf(g.w, "%s%s\n", g.prefix(i, ":"), line[mm[0]:mm[1]])
			}
		}
	} else {
		fmt.Fprintf(g.w, "%s%s\n", g.prefix(i, ":"), line)
	}
	g.lastOut, g.afterLeft = i, o.after
}
