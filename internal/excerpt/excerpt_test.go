package excerpt

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("a", 200_000)
	for _, tc := range []struct{ in, want string }{
		{"jank", `"jank"`},
		{"a\nb", `"a\nb"`},
		{strings.Repeat("x", Max), `"` + strings.Repeat("x", Max) + `"`},
		{long, `"` + strings.Repeat("a", Max) + `…" (200000 bytes)`},
		// A cut never splits a rune: é is two bytes, the 121st byte would
		// be its second half.
		{"a" + strings.Repeat("é", 100), `"a` + strings.Repeat("é", 59) + `…" (201 bytes)`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.20q…) = %s, want %s", tc.in, got, tc.want)
		}
		if got := Bytes([]byte(tc.in)); got != tc.want {
			t.Errorf("Bytes(%.20q…) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	if got := Snippet([]byte(`{ "max": 3 }`)); got != `{ "max": 3 }` {
		t.Errorf("short: %s", got)
	}
	if got := Snippet([]byte(strings.Repeat("9", 1000))); got != strings.Repeat("9", Max)+"… (1000 bytes)" {
		t.Errorf("long: %s", got)
	}
}

func TestText(t *testing.T) {
	if got := Text("json: unknown field \"x\""); got != "json: unknown field \"x\"" {
		t.Errorf("short message changed: %q", got)
	}
	got := Text(`json: unknown field "` + strings.Repeat("é", 1000) + `"`)
	if len(got) > 3*Max+40 || !strings.HasSuffix(got, "… (2022 bytes)") || !utf8.ValidString(got) {
		t.Errorf("long message: %q", got)
	}
}

// Invalid UTF-8 quotes four bytes a byte: the quote is cut by its own
// length, so a message stays bounded however the text is made.
func TestQuoteInvalidUTF8(t *testing.T) {
	bad := strings.Repeat("\xff", 5000)
	got := Quote(bad)
	if len(got) > Max+30 || !strings.HasSuffix(got, "…\" (5000 bytes)") || !strings.HasPrefix(got, `"\xff\xff`) {
		t.Errorf("Quote of 5000 invalid bytes: %d bytes: %s", len(got), got)
	}
	if b := Bytes([]byte(bad)); b != got {
		t.Errorf("Bytes and Quote differ: %s / %s", b, got)
	}
}

func TestStart(t *testing.T) {
	if got, want := Start([]byte("12345")), `"12345…"`; got != want {
		t.Errorf("short: %s, want %s", got, want)
	}
	long := make([]byte, 1<<20)
	for i := range long {
		long[i] = '7'
	}
	if got, want := Start(long), `"`+strings.Repeat("7", Max)+`…"`; got != want {
		t.Errorf("long: %s", got)
	}
	if got := Start([]byte(strings.Repeat("\xff", 1000))); len(got) > Max+5 || !strings.HasPrefix(got, `"\xff`) {
		t.Errorf("invalid UTF-8: %d bytes: %s", len(got), got)
	}
}

// Quoting a long text costs what the quote holds, not the text's size:
// a 64 MB line of invalid UTF-8 is not quoted whole (256 MB) to be cut.
func TestQuoteLongAllocates(t *testing.T) {
	s := strings.Repeat("\xff", 64<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := Quote(s)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("Quote of 64 MB allocated %d bytes", n)
	}
	if !strings.HasSuffix(got, fmt.Sprintf("(%d bytes)", len(s))) {
		t.Errorf("quote %s", got)
	}
}

func TestCheck(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		msg string
		ok  bool
	}{
		{"/proc/stat: line 3: bad number " + Quote(long) + ": " + Quote("\xff"+long), true},
		{"x: line 1: longer than 1048576 bytes: " + Start([]byte(long)), true},
		{`plain "quote" and a lone " mark`, true},
		{"bad number " + strconv.Quote(long[:Max+1]), false},
		{"bad " + long, false},
	} {
		if err := Check(tc.msg); (err == nil) != tc.ok {
			t.Errorf("Check(%.80q…) = %v, want ok %v", tc.msg, err, tc.ok)
		}
	}
}

// A snippet of raw JSON holds quote marks that pair with the next quote
// past its cut: no quote, and the message passes.
func TestCheckSnippet(t *testing.T) {
	msg := `fuzz.json:1: bad entry ` + Snippet([]byte(`{"":0,"0":"`+strings.Repeat("0", 200)+`"}`)) + `: json: unknown field ""`
	if err := Check(msg); err != nil {
		t.Errorf("%v", err)
	}
}

// The distance counts insertions, deletions, substitutions and swaps of
// two neighbours, one each.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"kitten", "sitting", 3}, {"jnak", "jank", 1}, {"", "abc", 3}, {"feed", "feed", 0}, {"Feeed", "Feed", 1}, {"ca", "abc", 3}} {
		if d := EditDistance(c.a, c.b); d != c.want {
			t.Errorf("%q → %q: %d, want %d", c.a, c.b, d, c.want)
		}
	}
}
