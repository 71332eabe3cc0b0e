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
	// Text longer than Max quotes longer than Max+2: it is never quoted
	// whole, which would take up to four times its size.
	if len(s) <= Max {
		if q := strconv.Quote(s); len(q) <= Max+2 {
			return q
		}
	}
	return fmt.Sprintf(`"%s…" (%d bytes)`, quotedPrefix(s), len(s))
}

// Start quotes the start of a text too long to hold (a line cut off where
// a reader stopped keeping it), as Quote does but without a length, which
// the caller states: always with the ellipsis, as more followed.
//
//	"aaaaaaaa…"
func Start(b []byte) string {
	return `"` + quotedPrefix(string(b[:min(len(b), 4*Max)])) + `…"`
}

// quotedPrefix is strconv.Quote of the longest start of s, cut on a rune
// boundary, whose quoted form (without the quotes) is at most Max bytes.
func quotedPrefix(s string) string {
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
	return b.String()
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

// MaxMessage is the longest message Check accepts: a few quotes of Max
// and the words around them.
const MaxMessage = 800

// Check reports, for tests and fuzz targets, whether msg quotes the text
// it is about in bounded pieces: every Go-quoted piece of it holds at most
// Max bytes between its quotes (and the ellipsis of a cut), and msg is at
// most MaxMessage bytes long, however long the text it quotes.
func Check(msg string) error {
	if len(msg) > MaxMessage {
		return fmt.Errorf("a %d-byte message, more than %d: %.200q…", len(msg), MaxMessage, msg)
	}
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			continue
		}
		q, err := strconv.QuotedPrefix(msg[i:])
		if err != nil || strings.Contains(q, "… (") {
			// A quote mark of text shown as it is (Snippet, Text) pairs
			// with no quote, or with one past the cut that marks the
			// snippet's end: neither is a quote.
			continue
		}
		if inner := strings.TrimSuffix(q[1:len(q)-1], "…"); len(inner) > Max {
			return fmt.Errorf("a quote of %d bytes, more than %d: %.200s…", len(inner), Max, q)
		}
		i += len(q) - 1
	}
	return nil
}

// EditDistance is the Damerau–Levenshtein distance (optimal string
// alignment) of a and b in runes, for naming the names closest to a
// misspelt one: "jnak" is 1 from "jank", "kitten" 3 from "sitting".
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
