package excerpt

import (
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
