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
		switch c {
		case 'E', 'F', 'G':
			o.mode = c
		case 'i':
			o.ignoreCase = true
		case 'v':
			o.invert = true
		case 'w':
			o.word = true
		case 'x':
			o.line = true
		case 'c':
			o.count = true
		case 'q':
			o.quiet = true
		case 'o':
			o.only = true
		case 'n':
			o.number = true
		case 'l':
			o.list = true
		case 'h':
			o.noName = true
		case 'H':
			o.withName = true
		case 's':
			o.silent = true
		case 'e', 'm', 'A', 'B', 'C':
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
		default:
			return usageError("Unknown option '" + string(c) + "'")
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
	showName := (len(files) > 1 || o.withName) && !o.noName
	w := bufio.NewWriter(p.stdout)
	defer w.Flush()
	selected, trouble := false, false
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
		name := f
		if f == "-" {
			name = "(standard input)"
		}
		count := 0
		ctxOut := o.after > 0 || o.before > 0
		var held []string // up to o.before lines before the next match
		lastOut, afterLeft := -1, 0
		for i := 0; ; i++ {
			if f == "-" && w.Buffered() > 0 {
				// Lines from a stream (logcat | grep) go out as they
				// match: at the latest before grep waits for more input.
				if b, _ := r.Peek(r.Buffered()); bytes.IndexByte(b, '\n') < 0 && w.Flush() != nil {
					return 2
				}
			}
			line, err := r.ReadString('\n')
			if line == "" && err != nil {
				break
			}
			line = strings.TrimSuffix(line, "\n")
			prefix := func(sep string) string {
				s := ""
				if showName {
					s = name + sep
				}
				if o.number {
					s += strconv.Itoa(i+1) + sep
				}
				return s
			}
			ms := grepMatches(re, line, o.word, o.only && !o.invert)
			if (len(ms) > 0) == o.invert || o.max >= 0 && count >= o.max {
				if o.max >= 0 && count >= o.max && afterLeft == 0 {
					break
				}
				if afterLeft > 0 && !o.count && !o.list {
					fmt.Fprintf(w, "%s%s\n", prefix("-"), line)
					lastOut = i
					afterLeft--
				} else if o.before > 0 {
					held = append(held, prefix("-")+line)
					if len(held) > o.before {
						held = held[1:]
					}
				}
				continue
			}
			count++
			selected = true
			if o.quiet {
				return 0
			}
			if o.count || o.list {
				continue
			}
			if ctxOut && lastOut >= 0 && i-len(held) > lastOut+1 {
				fmt.Fprintln(w, "--")
			}
			for _, h := range held {
				fmt.Fprintln(w, h)
			}
			held = held[:0]
			if o.only && !o.invert {
				for _, mm := range ms {
					if mm[1] > mm[0] {
						fmt.Fprintf(w, "%s%s\n", prefix(":"), line[mm[0]:mm[1]])
					}
				}
			} else {
				fmt.Fprintf(w, "%s%s\n", prefix(":"), line)
			}
			lastOut, afterLeft = i, o.after
		}
		if p.ctx.Err() != nil {
			return 130
		}
		switch {
		case o.list && count > 0:
			fmt.Fprintln(w, name)
		case o.count && showName:
			fmt.Fprintf(w, "%s:%d\n", name, count)
		case o.count:
			fmt.Fprintln(w, count)
		}
	}
	switch {
	case trouble && !(o.quiet && selected):
		return 2
	case selected:
		return 0
	}
	return 1
}
