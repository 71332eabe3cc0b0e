package uia2

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// uiSelector is a parsed `new UiSelector()…` chain, the locator of the
// "-android uiautomator" strategy.
type uiSelector struct {
	conds      []uiCond
	instance   int // -1 when not given
	child      *uiSelector
	fromParent *uiSelector
}

// uiCond is one criterion of a UiSelector chain.
type uiCond struct {
	attr string // tree attribute it reads
	kind int
	str  string
	re   *regexp.Regexp
}

const (
	condEquals = iota
	condContains
	condContainsFold
	condPrefixFold
	condMatches
)

// uiStringMethods maps UiSelector methods that take a string to what they compare.
// Case rules follow the android.support.test.uiautomator.UiSelector docs.
var uiStringMethods = map[string]struct {
	attr string
	kind int
}{
	"text":                  {"text", condEquals},
	"textContains":          {"text", condContains},
	"textStartsWith":        {"text", condPrefixFold},
	"textMatches":           {"text", condMatches},
	"description":           {"content-desc", condEquals},
	"descriptionContains":   {"content-desc", condContainsFold},
	"descriptionStartsWith": {"content-desc", condPrefixFold},
	"descriptionMatches":    {"content-desc", condMatches},
	"resourceId":            {"resource-id", condEquals},
	"resourceIdMatches":     {"resource-id", condMatches},
	"className":             {"class", condEquals},
	"classNameMatches":      {"class", condMatches},
	"packageName":           {"package", condEquals},
	"packageNameMatches":    {"package", condMatches},
}

// uiBoolMethods are the UiSelector methods that take a boolean.
var uiBoolMethods = map[string]string{
	"checkable": "checkable", "checked": "checked", "clickable": "clickable",
	"enabled": "enabled", "focusable": "focusable", "focused": "focused",
	"scrollable": "scrollable", "selected": "selected", "longClickable": "long-clickable",
}

// parseUiSelectors parses one or more `new UiSelector()…` statements
// separated by semicolons, as the Appium server accepts them.
func parseUiSelectors(src string) ([]*uiSelector, error) {
	p := &uiParser{src: src}
	var sels []*uiSelector
	for {
		p.skipSpace()
		if p.eof() {
			break
		}
		sel, err := p.selector()
		if err != nil {
			return nil, err
		}
		sels = append(sels, sel)
		p.skipSpace()
		if p.eof() {
			break
		}
		if !p.consume(";") {
			return nil, p.errorf("expected ';' or the end of the selector")
		}
	}
	if len(sels) == 0 {
		return nil, fmt.Errorf("UiSelector %q: empty selector", src)
	}
	return sels, nil
}

type uiParser struct {
	src   string
	pos   int
	depth int
}

// maxNesting bounds childSelector/fromParent nesting so a hostile selector
// cannot recurse without limit.
const maxNesting = 32

func (p *uiParser) eof() bool { return p.pos >= len(p.src) }

func (p *uiParser) errorf(format string, args ...any) error {
	return fmt.Errorf("UiSelector %q: at offset %d: %s", truncate(p.src, 200), p.pos, fmt.Sprintf(format, args...))
}

func (p *uiParser) skipSpace() {
	for !p.eof() && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *uiParser) consume(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.src[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *uiParser) ident() string {
	p.skipSpace()
	start := p.pos
	for !p.eof() {
		c := p.src[p.pos]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.pos > start && c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *uiParser) selector() (*uiSelector, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return nil, p.errorf("selectors nested deeper than %d", maxNesting)
	}
	save := p.pos
	if p.ident() != "new" {
		p.pos = save
	}
	if name := p.ident(); name != "UiSelector" {
		return nil, p.errorf("expected 'new UiSelector()', found %q", name)
	}
	if !p.consume("(") || !p.consume(")") {
		return nil, p.errorf("expected '()' after UiSelector")
	}
	sel := &uiSelector{instance: -1}
	for p.consume(".") {
		method := p.ident()
		if method == "" {
			return nil, p.errorf("expected a method name after '.'")
		}
		if !p.consume("(") {
			return nil, p.errorf("expected '(' after %s", method)
		}
		if err := p.method(sel, method); err != nil {
			return nil, err
		}
		if !p.consume(")") {
			return nil, p.errorf("expected ')' to close %s(", method)
		}
	}
	return sel, nil
}

func (p *uiParser) method(sel *uiSelector, method string) error {
	if m, ok := uiStringMethods[method]; ok {
		s, err := p.stringLit()
		if err != nil {
			return err
		}
		c := uiCond{attr: m.attr, kind: m.kind, str: s}
		if m.kind == condMatches {
			// Java's String.matches must match the whole value.
			if c.re, err = regexp.Compile(`^(?:` + s + `)$`); err != nil {
				return p.errorf("%s: bad regular expression %q: %v", method, s, err)
			}
		}
		sel.conds = append(sel.conds, c)
		return nil
	}
	if attr, ok := uiBoolMethods[method]; ok {
		switch w := p.ident(); w {
		case "true", "false":
			sel.conds = append(sel.conds, uiCond{attr: attr, kind: condEquals, str: w})
			return nil
		default:
			return p.errorf("%s: expected true or false, found %q", method, w)
		}
	}
	switch method {
	case "index", "instance":
		n, err := p.intLit()
		if err != nil {
			return err
		}
		if n < 0 {
			return p.errorf("%s: must not be negative, got %d", method, n)
		}
		if method == "instance" {
			sel.instance = n
		} else {
			sel.conds = append(sel.conds, uiCond{attr: "index", kind: condEquals, str: strconv.Itoa(n)})
		}
		return nil
	case "childSelector", "fromParent":
		sub, err := p.selector()
		if err != nil {
			return err
		}
		if method == "childSelector" {
			sel.child = sub
		} else {
			sel.fromParent = sub
		}
		return nil
	}
	return p.errorf("unsupported UiSelector method %q", method)
}

func (p *uiParser) intLit() (int, error) {
	p.skipSpace()
	start := p.pos
	if !p.eof() && p.src[p.pos] == '-' {
		p.pos++
	}
	for !p.eof() && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil {
		return 0, p.errorf("expected an integer, found %q", p.src[start:p.pos])
	}
	return n, nil
}

// stringLit reads a Java string literal.
func (p *uiParser) stringLit() (string, error) {
	p.skipSpace()
	if p.eof() || p.src[p.pos] != '"' {
		return "", p.errorf("expected a string literal")
	}
	p.pos++
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", p.errorf("unterminated escape")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				if p.pos+4 > len(p.src) {
					return "", p.errorf("short \\u escape")
				}
				v, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 16)
				if err != nil {
					return "", p.errorf("bad \\u escape %q", p.src[p.pos:p.pos+4])
				}
				b.WriteRune(rune(v))
				p.pos += 4
			default:
				// \" \\ \' and regex escapes such as \. keep their meaning.
				if e != '"' && e != '\\' && e != '\'' {
					b.WriteByte('\\')
				}
				b.WriteByte(e)
			}
		default:
			_, size := utf8.DecodeRuneInString(p.src[p.pos:])
			b.WriteString(p.src[p.pos : p.pos+size])
			p.pos += size
		}
	}
	return "", p.errorf("unterminated string literal")
}

func (c *uiCond) match(t *tree, n int) bool {
	v, _ := t.attr(n, c.attr)
	switch c.kind {
	case condContains:
		return strings.Contains(v, c.str)
	case condContainsFold:
		return strings.Contains(strings.ToLower(v), strings.ToLower(c.str))
	case condPrefixFold:
		return strings.HasPrefix(strings.ToLower(v), strings.ToLower(c.str))
	case condMatches:
		return c.re.MatchString(v)
	}
	return v == c.str
}

// find returns the nodes in scope that sel selects, in document order.
func (sel *uiSelector) find(t *tree, scope []int) []int {
	var hits []int
	for _, n := range scope {
		ok := true
		for i := range sel.conds {
			if !sel.conds[i].match(t, n) {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, n)
		}
	}
	if sel.instance >= 0 {
		if sel.instance >= len(hits) {
			return nil
		}
		hits = hits[sel.instance : sel.instance+1]
	}
	if sel.child != nil {
		hits = sel.child.find(t, t.below(hits))
	}
	if sel.fromParent != nil {
		parents := make([]int, 0, len(hits))
		for _, h := range hits {
			parents = append(parents, t.nodes[h].parent)
		}
		hits = sel.fromParent.find(t, t.below(sortUnique(parents)))
	}
	return hits
}
