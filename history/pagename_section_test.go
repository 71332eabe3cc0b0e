package history

import "testing"

// Every metric has a trend page of its own: a section metric's name,
// which the file name cannot hold as it is, does not share one with
// another section's; the catalogue's names keep theirs.
func TestPageNameSections(t *testing.T) {
	seen := map[string]string{}
	for _, m := range []string{"jank", "frame_time_p95", "section_sum:feed", "section_sum:feed:%", "section_sum:feed_", "section_sum:feed bind", "section_sum:feed:bind", "section_sum:feed_bind"} {
		p := PageName(m)
		if other, ok := seen[p]; ok {
			t.Errorf("%s and %s share the page %s", m, other, p)
		}
		seen[p] = m
	}
	if PageName("jank") != "trend-jank" || PageName("frame_time_p95") != "trend-frame_time_p95" {
		t.Errorf("pages %s, %s", PageName("jank"), PageName("frame_time_p95"))
	}
}
