// Package excerpt quotes text that came from a user's file or command line
// in error messages, at a bounded length: a 200 MB line gives a one-line
// message that still shows where it went wrong.
package excerpt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is how many bytes of the offending text a message quotes.
const Max = 120

// Quote is strconv.Quote of s, cut once the quoted text passes Max bytes
// (on a rune boundary) and then marked with an ellipsis and the full
// length:
//
//	"aaaaaaaa…" (200000000 bytes)
//
// The cut counts the quoted form, so bytes that quote long (invalid UTF-8
// is \xff, four bytes a byte) cannot make an error longer.
func Quote(s string) string {
	if q := strconv.Quote(s); len(q) <= Max+2 {
		return q
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		q := strconv.Quote(s[i : i+w])
		q = q[1 : len(q)-1]
		if b.Len()+len(q) > Max {
			break
		}
		b.WriteString(q)
		i += w
	}
	return fmt.Sprintf(`"%s…" (%d bytes)`, b.String(), len(s))
}

// Bytes is Quote of b.
func Bytes(b []byte) string {
	if len(b) > 4*Max {
		// Only the start is quoted: no need to copy the rest.
		return strings.Replace(Quote(string(b[:4*Max])), fmt.Sprintf("(%d bytes)", 4*Max), fmt.Sprintf("(%d bytes)", len(b)), 1)
	}
	return Quote(string(b))
}

// Snippet is b as it is (not quoted) when it is at most Max bytes long,
// else cut there and marked with an ellipsis and its full length; for an
// offending piece of a file that reads best as it was written.
func Snippet(b []byte) string {
	if len(b) <= Max {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", cut(string(b[:Max+1]), Max), len(b))
}

// Text bounds a message that may embed offending text (the error of a JSON
// decoder quotes an unknown field whole) at 3×Max bytes, marking a cut one
// with an ellipsis and its full length.
func Text(s string) string {
	if len(s) <= 3*Max {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", cut(s, 3*Max), len(s))
}

// cut is the longest prefix of s of at most n bytes that ends on a rune
// boundary.
func cut(s string, n int) string {
	i := n
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
