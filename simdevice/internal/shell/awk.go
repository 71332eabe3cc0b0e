package shell

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// awkRule is one `[/REGEX/] { print ITEMS }` or `END { print ITEMS }` rule.
type awkRule struct {
	end   bool
	match *regexp.Regexp // nil: every record
	items [][]string     // print arguments; each is a list of concatenated terms
}

// parseAwk reads the subset of awk that one-line device scripts use to pick
// columns: rules of an optional /REGEX/ or END and a block of print
// statements whose terms are $N, $NF, NR, NF and "strings".
func parseAwk(src string) ([]awkRule, error) {
	var rules []awkRule
	s := strings.TrimSpace(src)
	for s != "" {
		var r awkRule
		switch {
		case strings.HasPrefix(s, "END"):
			r.end = true
			s = strings.TrimSpace(s[3:])
		case strings.HasPrefix(s, "/"):
			end := strings.IndexByte(s[1:], '/')
			if end < 0 {
				return nil, fmt.Errorf("unterminated regex")
			}
			re, err := regexp.Compile(ereToGo(s[1 : end+1]))
			if err != nil {
				return nil, err
			}
			r.match = re
			s = strings.TrimSpace(s[end+2:])
		}
		if !strings.HasPrefix(s, "{") {
			if r.match != nil {
				// A pattern alone prints the records it matches.
				rules = append(rules, r)
				continue
			}
			return nil, fmt.Errorf("syntax error at source line 1 near %q", s)
		}
		rb := strings.IndexByte(s, '}')
		if rb < 0 {
			return nil, fmt.Errorf("missing }")
		}
		for _, stmt := range strings.Split(s[1:rb], ";") {
			stmt = strings.TrimSpace(stmt)
			if stmt == "" {
				continue
			}
			args, ok := strings.CutPrefix(stmt, "print")
			if !ok {
				return nil, fmt.Errorf("syntax error at source line 1 near %q", stmt)
			}
			items, err := awkItems(args)
			if err != nil {
				return nil, err
			}
			r.items = items
		}
		rules = append(rules, r)
		s = strings.TrimSpace(s[rb+1:])
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("no program")
	}
	return rules, nil
}

// awkItems splits print's arguments at commas into terms.
func awkItems(s string) ([][]string, error) {
	var items [][]string
	var cur []string
	s = strings.TrimSpace(s)
	for s != "" {
		switch {
		case s[0] == ',':
			items = append(items, cur)
			cur = nil
			s = s[1:]
		case s[0] == '"':
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("non-terminated string")
			}
			cur = append(cur, s[:end+2])
			s = s[end+2:]
		default:
			end := strings.IndexAny(s, ` ,"`)
			if end < 0 {
				end = len(s)
			}
			term := s[:end]
			if !validAwkTerm(term) {
				return nil, fmt.Errorf("syntax error at source line 1 near %q", term)
			}
			cur = append(cur, term)
			s = s[end:]
		}
		s = strings.TrimLeft(s, " \t")
	}
	if cur != nil || len(items) > 0 {
		items = append(items, cur)
	}
	return items, nil
}

func validAwkTerm(t string) bool {
	if t == "NR" || t == "NF" || t == "$NF" || t == "$0" {
		return true
	}
	if n, ok := strings.CutPrefix(t, "$"); ok {
		v, err := strconv.Atoi(n)
		return err == nil && v >= 0
	}
	return false
}

// awk runs a program of the subset parseAwk reads.
func (p *proc) awk() int {
	args := p.args[1:]
	sep := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-F") {
		if args[0] == "-F" && len(args) > 1 {
			sep, args = args[1], args[2:]
		} else {
			sep, args = args[0][2:], args[1:]
		}
	}
	if len(args) == 0 {
		p.errf("usage: awk [-F fs] 'prog' [file ...]\n")
		return 2
	}
	rules, err := parseAwk(args[0])
	if err != nil {
		p.errf("awk: %v\n", err)
		return 2
	}
	w := bufio.NewWriter(p.stdout)
	defer w.Flush()
	a := &awkRun{w: w}
	for _, op := range inputs(args[1:]) {
		r, err := p.lineReader(op)
		if err != nil {
			p.errf("awk: can't open file %s\n", op)
			return 2
		}
		for {
			line, err := r.ReadString('\n')
			if line == "" && err != nil {
				break
			}
			a.record(strings.TrimSuffix(line, "\n"), sep)
			for _, rule := range rules {
				if !rule.end && (rule.match == nil || rule.match.MatchString(a.rec)) {
					a.emit(rule)
				}
			}
			if op == "-" && w.Flush() != nil {
				return 2
			}
		}
	}
	if p.ctx.Err() != nil {
		return 130
	}
	for _, rule := range rules {
		if rule.end {
			a.emit(rule)
		}
	}
	return 0
}

// awkRun is the state of a running awk program: the record and its fields.
type awkRun struct {
	w      *bufio.Writer
	nr     int
	rec    string
	fields []string
}

// record takes the next record, split on sep (blanks when empty or " ").
func (a *awkRun) record(rec, sep string) {
	a.rec = rec
	a.nr++
	if sep == "" || sep == " " {
		a.fields = strings.Fields(rec)
	} else {
		a.fields = strings.Split(rec, sep)
	}
}

// eval is a term's value for the current record.
func (a *awkRun) eval(term string) string {
	switch {
	case strings.HasPrefix(term, `"`):
		return strings.Trim(term, `"`)
	case term == "NR":
		return strconv.Itoa(a.nr)
	case term == "NF":
		return strconv.Itoa(len(a.fields))
	case term == "$NF":
		if len(a.fields) == 0 {
			return ""
		}
		return a.fields[len(a.fields)-1]
	case term == "$0":
		return a.rec
	}
	n, _ := strconv.Atoi(term[1:])
	if n >= 1 && n <= len(a.fields) {
		return a.fields[n-1]
	}
	return ""
}

// emit prints what rule r prints: the record, or its items.
func (a *awkRun) emit(r awkRule) {
	if r.items == nil {
		fmt.Fprintln(a.w, a.rec)
		return
	}
	out := make([]string, len(r.items))
	for i, it := range r.items {
		var b strings.Builder
		for _, t := range it {
			b.WriteString(a.eval(t))
		}
		out[i] = b.String()
	}
	fmt.Fprintln(a.w, strings.Join(out, " "))
}
