// Package jsondup finds a key that occurs twice in one JSON object, at any
// depth. encoding/json keeps the last of two equal keys without a word, so a
// merge leftover such as "jank": {"max": 3} … "jank": {"max": 300} would
// loosen a budget silently; the file parsers of perfgate refuse such files.
package jsondup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// Dup is a key found twice in one object.
type Dup struct {
	// Key is the repeated key; Path the keys (or "[i]" array indexes) of
	// the objects that lead to the one holding it, from the top.
	Key  string
	Path []string
	// First and Second are the 1-based lines of the two occurrences.
	First, Second int
}

// Where names the object holding the key: `"steps"."scroll"`, or "the top
// level".
func (d *Dup) Where() string {
	if len(d.Path) == 0 {
		return "the top level"
	}
	parts := make([]string, len(d.Path))
	for i, p := range d.Path {
		if strings.HasPrefix(p, "[") {
			parts[i] = p
		} else {
			parts[i] = excerpt.Quote(p)
		}
	}
	return "object " + strings.Join(parts, ".")
}

// Error is the message a parser gives for the file named path:
//
//	b.json:12: duplicate key "jank" in object "steps"."scroll" (lines 5 and 12)
func (d *Dup) Error(path string) error {
	return fmt.Errorf("%s:%d: duplicate key %s in %s (lines %d and %d); keep one", path, d.Second, excerpt.Quote(d.Key), d.Where(), d.First, d.Second)
}

type frame struct {
	object  bool
	keys    map[string]int // key → line, in an object
	wantKey bool           // an object's next string is a key
	name    string         // this value's key or index in its parent
	index   int            // next index, in an array
}

// Find returns the first key that occurs twice in one object of the JSON
// text b, or nil. It stops without a finding at the first syntax error and
// leaves that to the caller's decoder, whose message names it better.
func Find(b []byte) *Dup {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []*frame
	line, lineOff := 1, 0
	lineAt := func(off int) int {
		off = min(off, len(b))
		if off > lineOff {
			line += bytes.Count(b[lineOff:off], []byte("\n"))
			lineOff = off
		}
		return line
	}
	path := func() []string {
		var p []string
		for _, f := range stack[1:] {
			p = append(p, f.name)
		}
		return p
	}
	// valueDone marks the value that just ended in its parent.
	valueDone := func() {
		if n := len(stack); n > 0 {
			top := stack[n-1]
			if top.object {
				top.wantKey = true
			} else {
				top.index++
			}
		}
	}
	var key string
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.object && top.wantKey {
			if s, ok := tok.(string); ok {
				l := lineAt(int(dec.InputOffset()))
				if first, dup := top.keys[s]; dup {
					return &Dup{Key: s, Path: path(), First: first, Second: l}
				}
				top.keys[s] = l
				top.wantKey = false
				key = s
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			f := &frame{object: tok == json.Delim('{'), wantKey: true}
			if f.object {
				f.keys = map[string]int{}
			}
			if top != nil {
				if top.object {
					f.name = key
				} else {
					f.name = fmt.Sprintf("[%d]", top.index)
				}
			}
			stack = append(stack, f)
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// Decode is how perfgate reads a small JSON file strictly into v: a key
// given twice, a field v lacks, and text after the top-level value are
// errors, each naming the file path (and the line, for a syntax error)
// and quoting at most a bounded excerpt.
func Decode(path string, b []byte, v any) error {
	if d := Find(b); d != nil {
		return d.Error(path)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s:%d: bad JSON: %s", path, 1+bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")), excerpt.Text(err.Error()))
		}
		return fmt.Errorf("%s: %s", path, excerpt.Text(err.Error()))
	}
	if dec.More() {
		return fmt.Errorf("%s: text after the top-level value", path)
	}
	return nil
}
