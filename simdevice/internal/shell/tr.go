package shell

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// tr implements `tr [-d] [-s] SET1 [SET2]` over bytes, with ranges (a-z),
// the escapes \n \t \r \\ and octal \NNN, and [:digit:]-style classes.
func (p *proc) tr() int {
	fl, ops, err := parseFlags(p.args[1:], "dsc", "")
	if err != nil {
		return p.usage("tr", err)
	}
	del, squeeze := has(fl, "d"), has(fl, "s")
	if len(ops) < 1 || !del && !squeeze && len(ops) < 2 {
		p.errf("tr: Needs 1-2 arguments\n")
		return 1
	}
	set1, err := expandSet(ops[0])
	if err != nil {
		p.errf("tr: %v\n", err)
		return 1
	}
	var set2 []byte
	if len(ops) > 1 {
		if set2, err = expandSet(ops[1]); err != nil {
			p.errf("tr: %v\n", err)
			return 1
		}
	}
	var in1, sq [256]bool
	var mapTo [256]byte
	for i := range mapTo {
		mapTo[i] = byte(i)
	}
	for i, c := range set1 {
		in1[c] = true
		if !del && len(set2) > 0 {
			// A short SET2 repeats its last byte, as POSIX tr does.
			mapTo[c] = set2[min(i, len(set2)-1)]
		}
	}
	if has(fl, "c") {
		for i := range in1 {
			in1[i] = !in1[i]
		}
	}
	sqSet := set2
	if del || len(set2) == 0 {
		sqSet = set1
	}
	for _, c := range sqSet {
		sq[c] = true
	}
	r := bufio.NewReader(p.stdin)
	w := bufio.NewWriter(p.stdout)
	defer w.Flush()
	last, haveLast := byte(0), false
	for {
		c, err := r.ReadByte()
		if err != nil {
			if err != io.EOF && p.ctx.Err() != nil {
				return 130
			}
			return 0
		}
		if del && in1[c] {
			continue
		}
		if !del {
			c = mapTo[c]
		}
		if squeeze && haveLast && c == last && sq[c] {
			continue
		}
		last, haveLast = c, true
		if w.WriteByte(c) != nil {
			return 1
		}
		if c == '\n' && w.Flush() != nil {
			return 1
		}
	}
}

// expandSet turns a tr SET into its bytes.
func expandSet(s string) ([]byte, error) {
	classes := map[string]string{
		"[:digit:]": "0-9", "[:lower:]": "a-z", "[:upper:]": "A-Z", "[:alpha:]": "a-zA-Z",
		"[:alnum:]": "0-9a-zA-Z", "[:space:]": " \t\n\r\f\v", "[:blank:]": " \t",
		"[:punct:]": "!-/:-@[-`{-~",
	}
	for k, v := range classes {
		s = strings.ReplaceAll(s, k, v)
	}
	var raw []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			raw = append(raw, c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			raw = append(raw, '\n')
		case 't':
			raw = append(raw, '\t')
		case 'r':
			raw = append(raw, '\r')
		case 'f':
			raw = append(raw, '\f')
		case 'v':
			raw = append(raw, '\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				n = n*8 + int(s[j]-'0')
				j++
			}
			if n > 255 {
				return nil, fmt.Errorf("bad octal escape in '%s'", s)
			}
			raw = append(raw, byte(n))
			i = j - 1
		default:
			raw = append(raw, s[i])
		}
	}
	var out []byte
	for i := 0; i < len(raw); i++ {
		if i+2 < len(raw) && raw[i+1] == '-' {
			lo, hi := raw[i], raw[i+2]
			if hi < lo {
				return nil, fmt.Errorf("range %c-%c out of order", lo, hi)
			}
			for c := int(lo); c <= int(hi); c++ {
				out = append(out, byte(c))
			}
			i += 2
			continue
		}
		out = append(out, raw[i])
	}
	return out, nil
}
