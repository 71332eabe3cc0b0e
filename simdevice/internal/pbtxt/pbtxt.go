// Package pbtxt reads the protobuf text format that `perfetto --txt`
// takes its trace config in: fields `name: value` and messages
// `name { … }` (or `name: { … }`), strings in double or single quotes,
// numbers, enum identifiers and `#` comments. It knows no schema: the
// simulated perfetto looks up the fields it honours by name and checks the
// names against the messages it knows.
package pbtxt

import (
	"fmt"
	"strconv"
	"strings"
)

// Message is one message's fields, in the order given.
type Message struct {
	Fields []Field
}

// Field is one field: a scalar (Value, with Quoted for a string) or a
// message (Msg).
type Field struct {
	Name   string
	Value  string
	Quoted bool
	Msg    *Message
	// Line is where the field's name is, from 1.
	Line int
}

// Error is a text that is not the protobuf text format.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Line, e.Msg) }

// maxDepth bounds nesting, as a config is a handful of levels deep.
const maxDepth = 64

// Parse reads a whole message.
func Parse(b []byte) (*Message, error) {
	p := &parser{s: string(b), line: 1}
	m, err := p.message(0)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.s) {
		return nil, p.errorf("unexpected %q", p.peek())
	}
	return m, nil
}

type parser struct {
	s    string
	pos  int
	line int
}

func (p *parser) errorf(format string, args ...any) error {
	return &Error{Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// skip passes blanks and comments.
func (p *parser) skip() {
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == ',' || c == ';':
			p.pos++
		case c == '#':
			for p.pos < len(p.s) && p.s[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// peek is the next character, "" at the end.
func (p *parser) peek() string {
	p.skip()
	if p.pos >= len(p.s) {
		return ""
	}
	return p.s[p.pos : p.pos+1]
}

// message reads fields up to a '}' (inside a message) or the end.
func (p *parser) message(depth int) (*Message, error) {
	if depth > maxDepth {
		return nil, p.errorf("messages nested deeper than %d", maxDepth)
	}
	m := &Message{}
	for {
		switch p.peek() {
		case "":
			if depth > 0 {
				return nil, p.errorf("'}' missing at the end")
			}
			return m, nil
		case "}":
			if depth == 0 {
				return nil, p.errorf("'}' without '{'")
			}
			p.pos++
			return m, nil
		}
		f, err := p.field(depth)
		if err != nil {
			return nil, err
		}
		m.Fields = append(m.Fields, f)
	}
}

func (p *parser) field(depth int) (Field, error) {
	f := Field{Line: p.line}
	name := p.ident()
	if name == "" {
		return f, p.errorf("want a field name, got %q", p.peek())
	}
	f.Name = name
	colon := p.peek() == ":"
	if colon {
		p.pos++
	}
	if p.peek() == "{" {
		p.pos++
		m, err := p.message(depth + 1)
		if err != nil {
			return f, err
		}
		f.Msg = m
		return f, nil
	}
	if !colon {
		return f, p.errorf("want ':' or '{' after %s", name)
	}
	switch p.peek() {
	case `"`, "'":
		v, err := p.str()
		if err != nil {
			return f, err
		}
		f.Value, f.Quoted = v, true
		return f, nil
	case "":
		return f, p.errorf("value of %s missing", name)
	}
	v := p.scalar()
	if v == "" {
		return f, p.errorf("bad value %q of %s", p.peek(), name)
	}
	f.Value = v
	return f, nil
}

// ident reads a field name or enum value.
func (p *parser) ident() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.pos > start && (c >= '0' && c <= '9') {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

// scalar reads a number or an identifier.
func (p *parser) scalar() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '_' || c == '-' || c == '+' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

// str reads one or more adjacent quoted strings, joined.
func (p *parser) str() (string, error) {
	var out strings.Builder
	for p.peek() == `"` || p.peek() == "'" {
		q := p.s[p.pos]
		start := p.pos
		p.pos++
		for {
			if p.pos >= len(p.s) || p.s[p.pos] == '\n' {
				return "", p.errorf("string not closed")
			}
			c := p.s[p.pos]
			if c == '\\' {
				p.pos += 2
				continue
			}
			p.pos++
			if c == q {
				break
			}
		}
		lit := p.s[start:p.pos]
		if q == '\'' {
			lit = `"` + strings.ReplaceAll(strings.ReplaceAll(lit[1:len(lit)-1], `\'`, `'`), `"`, `\"`) + `"`
		}
		v, err := strconv.Unquote(lit)
		if err != nil {
			return "", p.errorf("bad string %s", lit)
		}
		out.WriteString(v)
	}
	return out.String(), nil
}

// Get returns the last field named name (a repeated scalar field's last
// value, as protobuf keeps for a singular field).
func (m *Message) Get(name string) (Field, bool) {
	var out Field
	ok := false
	for _, f := range m.Fields {
		if f.Name == name {
			out, ok = f, true
		}
	}
	return out, ok
}

// All returns every field named name, in order.
func (m *Message) All(name string) []Field {
	var out []Field
	for _, f := range m.Fields {
		if f.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// Strings returns the values of the scalar fields named name.
func (m *Message) Strings(name string) []string {
	var out []string
	for _, f := range m.All(name) {
		if f.Msg == nil {
			out = append(out, f.Value)
		}
	}
	return out
}

// Int returns the last field named name as an integer; ok is false when it
// is absent, and err says when it is not an integer.
func (m *Message) Int(name string) (v int64, ok bool, err error) {
	f, ok := m.Get(name)
	if !ok {
		return 0, false, nil
	}
	if f.Msg != nil || f.Quoted {
		return 0, true, &Error{Line: f.Line, Msg: fmt.Sprintf("%s: want an integer", name)}
	}
	v, err = strconv.ParseInt(f.Value, 0, 64)
	if err != nil {
		return 0, true, &Error{Line: f.Line, Msg: fmt.Sprintf("%s: %q is not an integer", name, f.Value)}
	}
	return v, true, nil
}

// Bool returns the last field named name as a boolean (true, false, 1, 0).
func (m *Message) Bool(name string) (v, ok bool, err error) {
	f, ok := m.Get(name)
	if !ok {
		return false, false, nil
	}
	switch f.Value {
	case "true", "True", "t", "1":
		return true, true, nil
	case "false", "False", "f", "0":
		return false, true, nil
	}
	return false, true, &Error{Line: f.Line, Msg: fmt.Sprintf("%s: %q is not a boolean", name, f.Value)}
}
