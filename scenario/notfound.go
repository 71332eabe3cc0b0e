package scenario

import (
	"context"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// onScreenShown bounds how many values a not-found error lists.
const onScreenShown = 8

// onScreen says what the screen shows of the kind sel selects by (its
// texts, resource ids or content descriptions), closest to sel's value
// first, for an element not found: "; texts on screen, closest first:
// "Feed", "Scroll"". It is empty when the screen could not be read.
func (d *Driver) onScreen(ctx context.Context, sel Selector) string {
	src, err := d.Source(ctx)
	if err != nil {
		return ""
	}
	kind, attr := sel.kind()
	vals := closestFirst(screenValues(src, attr), sel.value)
	if len(vals) == 0 {
		return fmt.Sprintf("; no %s on screen", kind)
	}
	var q []string
	for _, v := range vals[:min(len(vals), onScreenShown)] {
		q = append(q, excerpt.Quote(v))
	}
	more := ""
	if n := len(vals) - onScreenShown; n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("; %s on screen, closest first: %s%s", kind, strings.Join(q, ", "), more)
}

// kind names what the selector matches, and the attribute of the
// uiautomator2 hierarchy that holds it.
func (s Selector) kind() (kind, attr string) {
	switch s.strategy {
	case "id":
		return "resource ids", "resource-id"
	case "desc":
		return "content descriptions", "content-desc"
	}
	return "texts", "text"
}

// screenValues is every distinct non-empty value of attr over the
// displayed nodes of a uiautomator2 hierarchy (its page source), in
// document order; a hierarchy that stops parsing gives what came before.
func screenValues(src, attr string) []string {
	dec := xml.NewDecoder(strings.NewReader(src))
	var out []string
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var v string
		shown := true
		for _, a := range el.Attr {
			switch a.Name.Local {
			case attr:
				v = a.Value
			case "displayed":
				shown = a.Value != "false"
			}
		}
		if v != "" && shown && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
}

// closestFirst orders vals by their edit distance to want, ignoring case,
// the screen's order breaking ties.
func closestFirst(vals []string, want string) []string {
	w := strings.ToLower(want)
	dist := make(map[string]int, len(vals))
	for _, v := range vals {
		dist[v] = excerpt.EditDistance(strings.ToLower(v), w)
	}
	out := slices.Clone(vals)
	slices.SortStableFunc(out, func(a, b string) int { return dist[a] - dist[b] })
	return out
}
