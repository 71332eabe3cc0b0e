package metrics

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A trace section's metrics are named by the section: the catalogue has no
// entry for each, but Lookup, Known and Def know every name of the form
// "section_<stat>:<section>", where <stat> is first, min, max, sum or
// count (androidx Macrobenchmark's TraceSectionMetric modes, its Average
// left out as sum/count) and <section> the section's name, or the pattern
// as the user wrote it ("section_sum:feed:bind", "section_max:JIT %").
// Budgets, gate lines, benchmark output and the history hold them as any
// other name.

// SectionPrefix begins every section metric's name.
const SectionPrefix = "section_"

// The statistics of a section's durations a step has, one metric each.
const (
	SectionFirst = "first"
	SectionMin   = "min"
	SectionMax   = "max"
	SectionSum   = "sum"
	SectionCount = "count"
)

// SectionStats lists the statistics in the order a step shows them.
var SectionStats = []string{SectionFirst, SectionMin, SectionMax, SectionSum, SectionCount}

// MaxSectionName is the longest section name or pattern, in bytes:
// Android's own bound on a trace section's name (Trace.beginSection).
const MaxSectionName = 127

// SectionName is the metric of stat over the sections named section.
func SectionName(stat, section string) Name {
	return Name(SectionPrefix + stat + ":" + section)
}

// Section splits a section metric's name into its statistic and the
// section's name or pattern; ok is false for any other name.
func (n Name) Section() (stat, section string, ok bool) {
	rest, ok := strings.CutPrefix(string(n), SectionPrefix)
	if !ok {
		return "", "", false
	}
	stat, section, ok = strings.Cut(rest, ":")
	if !ok || !isSectionStat(stat) || CheckSectionName(section) != nil {
		return "", "", false
	}
	return stat, section, true
}

func isSectionStat(s string) bool {
	for _, x := range SectionStats {
		if s == x {
			return true
		}
	}
	return false
}

// CheckSectionName reports why s cannot name sections in a metric's name:
// empty, longer than MaxSectionName, not UTF-8, blank at either end, or
// holding a control character or the '<' and '>' a budget's limit follows.
func CheckSectionName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty section name")
	case len(s) > MaxSectionName:
		return fmt.Errorf("section name of %d bytes, longer than Android's %d", len(s), MaxSectionName)
	case !utf8.ValidString(s):
		return fmt.Errorf("section name %q is not UTF-8", s)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("section name %q begins or ends with a blank", s)
	case strings.ContainsAny(s, "<>"):
		return fmt.Errorf("section name %q holds '<' or '>', which a budget's limit follows", s)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("section name %q holds a control character", s)
	}
	return nil
}

// sectionDef is the Def of a section metric's name.
func sectionDef(n Name) (Def, bool) {
	stat, section, ok := n.Section()
	if !ok {
		return Def{}, false
	}
	d := Def{Name: n, Unit: "ms", Better: Lower, Family: FamilySections,
		Doc:       "trace section " + section + ", " + stat + " duration",
		BenchUnit: benchSection("section-" + stat + "-" + section + "-ns"), BenchScale: 1e6,
		// A step new to a budget file gets a budget, and a gate a
		// baseline, of the sum, Macrobenchmark's default mode.
		Budget: stat == SectionSum, Gate: stat == SectionSum}
	if stat == SectionCount {
		d.Unit, d.Count, d.Doc = "sections", true, "trace section "+section+", count"
		d.BenchUnit, d.BenchScale = benchSection("section-count-"+section), 1
	}
	return d, true
}

// benchSection is a section metric's benchmark unit: one token, any
// blank of the section's name ("JIT compiling") a '_'.
func benchSection(s string) string {
	return BenchToken(strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, s))
}
