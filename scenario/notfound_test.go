package scenario

import (
	"slices"
	"strings"
	"testing"
)

// What the screen shows of a selector's kind, closest first: a typo's
// intended text leads, case aside; nodes not displayed and repeats are
// left out.
func TestScreenValuesClosestFirst(t *testing.T) {
	src := `<?xml version="1.0"?><hierarchy><node text="perfgate demo" resource-id="a:id/title"/>` +
		`<node text="Scroll" resource-id="a:id/scroll"/><node text="FEED" resource-id="a:id/feed"/>` +
		`<node text="Hidden" displayed="false"/><node text="Scroll"/><node text="" content-desc="feed list"/></hierarchy>`
	if got, want := closestFirst(screenValues(src, "text"), "Feeed"), []string{"FEED", "Scroll", "perfgate demo"}; !slices.Equal(got, want) {
		t.Errorf("texts %q, want %q", got, want)
	}
	if got, want := closestFirst(screenValues(src, "resource-id"), "a:id/fed"), []string{"a:id/feed", "a:id/title", "a:id/scroll"}; !slices.Equal(got, want) {
		t.Errorf("ids %q, want %q", got, want)
	}
	if got := screenValues(src, "content-desc"); !slices.Equal(got, []string{"feed list"}) {
		t.Errorf("descriptions %q", got)
	}
}

// Any page source gives values that are in it, without repeats.
func FuzzScreenValues(f *testing.F) {
	f.Add(`<hierarchy><node text="a" displayed="true"><node text="b"/></node></hierarchy>`)
	f.Add(`<hierarchy><node text="&amp;`)
	f.Fuzz(func(t *testing.T, src string) {
		vals := screenValues(src, "text")
		for i, v := range vals {
			if v == "" || slices.Contains(vals[:i], v) {
				t.Fatalf("values %q: empty or repeated %q", vals, v)
			}
		}
		if got := closestFirst(vals, strings.ToUpper(src)); len(got) != len(vals) {
			t.Fatalf("ordered %d of %d", len(got), len(vals))
		}
	})
}
