package metrics

import (
	"strings"
	"testing"
	"unicode"
)

// A section's metrics are known by name alone: each statistic with its
// unit and direction, and a count that counts; a name that is no section
// metric stays unknown.
func TestSectionNames(t *testing.T) {
	for _, tc := range []struct {
		name    Name
		unit    string
		count   bool
		section string
	}{
		{"section_sum:feed:bind", "ms", false, "feed:bind"},
		{"section_first:Recomposer:recompose", "ms", false, "Recomposer:recompose"},
		{"section_min:JIT %", "ms", false, "JIT %"},
		{"section_max:a", "ms", false, "a"},
		{"section_count:feed:bind", "sections", true, "feed:bind"},
	} {
		d, ok := Lookup(tc.name)
		if !ok || !tc.name.Known() || d.Name != tc.name || d.Unit != tc.unit || d.Count != tc.count ||
			d.Better != Lower || d.Family != FamilySections || d.Floor() {
			t.Errorf("%s: %+v %v", tc.name, d, ok)
		}
		if _, sec, _ := tc.name.Section(); sec != tc.section {
			t.Errorf("%s: section %q, want %q", tc.name, sec, tc.section)
		}
		if d.BenchUnit == "" || BenchToken(d.BenchUnit) != d.BenchUnit || strings.ContainsAny(d.BenchUnit, " /=") {
			t.Errorf("%s: benchmark unit %q", tc.name, d.BenchUnit)
		}
		if SectionName(strings.TrimPrefix(strings.SplitN(string(tc.name), ":", 2)[0], SectionPrefix), tc.section) != tc.name {
			t.Errorf("%s: SectionName does not give it back", tc.name)
		}
	}
	for _, n := range []Name{"section_sum", "section_sum:", "section_avg:x", "section_sum: x", "section_sum:a<b",
		"section_sum:a\tb", Name("section_sum:" + strings.Repeat("x", 128)), "sections_sum:x", "section_sum:\xff"} {
		if n.Known() {
			t.Errorf("%q is known", n)
		}
	}
}

func FuzzSectionName(f *testing.F) {
	for _, s := range []string{"section_sum:feed:bind", "section_count:JIT %", "section_avg:x", "section_max:", "jank", "section_first: a", "section_sum:JIT\u00a0compiling"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Name(s)
		stat, sec, ok := n.Section()
		if !ok {
			if _, known := sectionDef(n); known {
				t.Errorf("%q: a Def without a section", s)
			}
			return
		}
		d, known := Lookup(n)
		if SectionName(stat, sec) != n || !known || d.Family != FamilySections || CheckSectionName(sec) != nil ||
			d.BenchUnit == "" || strings.IndexFunc(d.BenchUnit, unicode.IsSpace) >= 0 || strings.ContainsAny(d.BenchUnit, "/=") {
			t.Errorf("%q: stat %q, section %q, def %+v", s, stat, sec, d)
		}
	})
}
