package uia2

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// xpath is a parsed location path in the subset of XPath 1.0 that UI tests
// use: child (/) and descendant (//) steps, name tests on the class name,
// node or *, and predicates made of @attr, @attr='v', @attr!='v', contains(),
// starts-with(), not(), and, or, parentheses and a position [N].
type xpath struct {
	steps []xstep
}

type xstep struct {
	descendant bool   // reached by //
	name       string // class name, "*", or "hierarchy" for the root
	preds      []xexpr
}

// xexpr is a predicate expression node.
type xexpr struct {
	op   string // "and", "or", "not", "=", "!=", "has", "contains", "starts-with", "pos"
	attr string
	lit  string
	pos  int
	args []xexpr
}

func parseXPath(src string) (*xpath, error) {
	p := &xparser{src: src}
	x := &xpath{}
	p.skipSpace()
	if p.eof() {
		return nil, fmt.Errorf("xpath %q: empty expression", src)
	}
	for !p.eof() {
		var st xstep
		switch {
		case p.consume("//"):
			st.descendant = true
		case p.consume("/"):
		default:
			if len(x.steps) > 0 {
				return nil, p.errorf("expected '/' or '//'")
			}
			// A relative path starts at the document, like //.
			st.descendant = true
		}
		p.skipSpace()
		if p.consume("*") {
			st.name = "*"
		} else if st.name = p.name(); st.name == "" {
			return nil, p.errorf("expected a class name or '*'")
		}
		for p.consume("[") {
			e, err := p.orExpr()
			if err != nil {
				return nil, err
			}
			if !p.consume("]") {
				return nil, p.errorf("expected ']'")
			}
			st.preds = append(st.preds, e)
		}
		x.steps = append(x.steps, st)
		if len(x.steps) > maxSteps {
			return nil, p.errorf("more than %d steps", maxSteps)
		}
		p.skipSpace()
	}
	return x, nil
}

// maxSteps and maxNesting keep hostile expressions from costing much.
const maxSteps = 64

type xparser struct {
	src   string
	pos   int
	depth int
}

func (p *xparser) eof() bool { return p.pos >= len(p.src) }

func (p *xparser) errorf(format string, args ...any) error {
	return fmt.Errorf("xpath %q: at offset %d: %s", truncate(p.src, 200), p.pos, fmt.Sprintf(format, args...))
}

func (p *xparser) skipSpace() {
	for !p.eof() && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *xparser) consume(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

// consumeWord is consume for keywords, which must not run into a name.
func (p *xparser) consumeWord(w string) bool {
	save := p.pos
	if p.name() == w {
		return true
	}
	p.pos = save
	return false
}

func (p *xparser) name() string {
	p.skipSpace()
	start := p.pos
	for !p.eof() {
		c := p.src[p.pos]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			p.pos > start && (c == '.' || c == '-' || c >= '0' && c <= '9') {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *xparser) orExpr() (xexpr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return xexpr{}, p.errorf("expression nested deeper than %d", maxNesting)
	}
	l, err := p.andExpr()
	if err != nil {
		return xexpr{}, err
	}
	for p.consumeWord("or") {
		r, err := p.andExpr()
		if err != nil {
			return xexpr{}, err
		}
		l = xexpr{op: "or", args: []xexpr{l, r}}
	}
	return l, nil
}

func (p *xparser) andExpr() (xexpr, error) {
	l, err := p.primary()
	if err != nil {
		return xexpr{}, err
	}
	for p.consumeWord("and") {
		r, err := p.primary()
		if err != nil {
			return xexpr{}, err
		}
		l = xexpr{op: "and", args: []xexpr{l, r}}
	}
	return l, nil
}

func (p *xparser) primary() (xexpr, error) {
	p.skipSpace()
	switch {
	case p.consume("("):
		e, err := p.orExpr()
		if err != nil {
			return xexpr{}, err
		}
		if !p.consume(")") {
			return xexpr{}, p.errorf("expected ')'")
		}
		return e, nil
	case p.consume("@"):
		attr := p.name()
		if attr == "" {
			return xexpr{}, p.errorf("expected an attribute name after '@'")
		}
		op := ""
		switch {
		case p.consume("!="):
			op = "!="
		case p.consume("="):
			op = "="
		default:
			return xexpr{op: "has", attr: attr}, nil
		}
		lit, err := p.literal()
		if err != nil {
			return xexpr{}, err
		}
		return xexpr{op: op, attr: attr, lit: lit}, nil
	case !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9':
		start := p.pos
		for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		n, err := strconv.Atoi(p.src[start:p.pos])
		if err != nil || n < 1 {
			return xexpr{}, p.errorf("bad position %q", p.src[start:p.pos])
		}
		return xexpr{op: "pos", pos: n}, nil
	}
	fn := p.name()
	switch fn {
	case "contains", "starts-with":
		if !p.consume("(") || !p.consume("@") {
			return xexpr{}, p.errorf("%s: expected '(@attribute, …)'", fn)
		}
		attr := p.name()
		if attr == "" || !p.consume(",") {
			return xexpr{}, p.errorf("%s: expected '(@attribute, …)'", fn)
		}
		lit, err := p.literal()
		if err != nil {
			return xexpr{}, err
		}
		if !p.consume(")") {
			return xexpr{}, p.errorf("%s: expected ')'", fn)
		}
		return xexpr{op: fn, attr: attr, lit: lit}, nil
	case "not":
		if !p.consume("(") {
			return xexpr{}, p.errorf("not: expected '('")
		}
		e, err := p.orExpr()
		if err != nil {
			return xexpr{}, err
		}
		if !p.consume(")") {
			return xexpr{}, p.errorf("not: expected ')'")
		}
		return xexpr{op: "not", args: []xexpr{e}}, nil
	case "":
		return xexpr{}, p.errorf("expected a predicate")
	}
	return xexpr{}, p.errorf("unsupported function or token %q", fn)
}

// literal reads an XPath string literal: XPath 1.0 has no escapes, the
// other quote character is the way to embed one.
func (p *xparser) literal() (string, error) {
	p.skipSpace()
	if p.eof() || p.src[p.pos] != '\'' && p.src[p.pos] != '"' {
		return "", p.errorf("expected a quoted string")
	}
	q := p.src[p.pos]
	end := strings.IndexByte(p.src[p.pos+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	s := p.src[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return s, nil
}

// eval applies the predicate to node n, the pos-th (1-based) of the step's
// candidates.
func (e *xexpr) eval(t *tree, n, pos int) bool {
	switch e.op {
	case "and":
		return e.args[0].eval(t, n, pos) && e.args[1].eval(t, n, pos)
	case "or":
		return e.args[0].eval(t, n, pos) || e.args[1].eval(t, n, pos)
	case "not":
		return !e.args[0].eval(t, n, pos)
	case "pos":
		return pos == e.pos
	}
	if n == 0 {
		// The <hierarchy> root carries none of the node attributes.
		return e.op == "!="
	}
	v, ok := t.attr(n, e.attr)
	switch e.op {
	case "has":
		return ok
	case "=":
		return ok && v == e.lit
	case "!=":
		return ok && v != e.lit
	case "contains":
		return ok && strings.Contains(v, e.lit)
	case "starts-with":
		return ok && strings.HasPrefix(v, e.lit)
	}
	return false
}

// nameMatches tests a node's name. Elements are named by class, as in the
// Appium server's XML; "node", the tag of the uiautomator dump that /source
// returns, names any element so paths written against that dump work too.
func (st *xstep) nameMatches(t *tree, n int) bool {
	if n == 0 {
		return st.name == "hierarchy" || st.name == "*"
	}
	return st.name == "*" || st.name == "node" || st.name == t.nodes[n].el.Class
}

// find evaluates the path from the document node and returns the selected
// element nodes in document order; a context node restricts the result to
// its descendants.
func (x *xpath) find(t *tree, context int) []int {
	// -1 stands for the document node, whose only child is the root.
	ctx := []int{-1}
	children := func(n int) []int {
		if n == -1 {
			return []int{0}
		}
		return t.nodes[n].children
	}
	for i := range x.steps {
		st := &x.steps[i]
		parents := ctx
		if st.descendant {
			// ctx is in document order and subtrees are contiguous ranges
			// that nest, so a context inside the previous range adds nothing.
			parents = nil
			covered := -2
			for _, c := range ctx {
				if c < covered {
					continue
				}
				end := len(t.nodes)
				if c >= 0 {
					end = t.nodes[c].end
				}
				for d := c; d < end; d++ {
					parents = append(parents, d)
				}
				covered = end
			}
		}
		var next []int
		for _, par := range parents {
			var cand []int
			for _, c := range children(par) {
				if st.nameMatches(t, c) {
					cand = append(cand, c)
				}
			}
			for pi := range st.preds {
				kept := cand[:0:0]
				for k, c := range cand {
					if st.preds[pi].eval(t, c, k+1) {
						kept = append(kept, c)
					}
				}
				cand = kept
			}
			next = append(next, cand...)
		}
		ctx = sortUnique(next)
		if len(ctx) == 0 {
			return nil
		}
	}
	out := ctx[:0:0]
	for _, n := range ctx {
		if n <= 0 {
			continue
		}
		if context > 0 && (n <= context || n >= t.nodes[context].end) {
			continue
		}
		out = append(out, n)
	}
	return out
}

func sortUnique(ids []int) []int {
	slices.Sort(ids)
	return slices.Compact(ids)
}
