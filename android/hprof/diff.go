package hprof

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Growth is how one class changed between two heap dumps of an app.
type Growth struct {
	Class string `json:"class"`
	// Instances and ShallowBytes are the changes, after − before.
	Instances    int64 `json:"instances"`
	ShallowBytes int64 `json:"shallow_bytes"`
	// Before and After are the class's instance counts in either dump.
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// Diff lists the classes that grew from before to after, in instances or
// in shallow size: the most shallow bytes gained first, then the most
// instances gained, then by name. A leak shows as a class at the top.
func Diff(before, after *Histogram) []Growth {
	was := map[string]ClassCount{}
	for _, c := range before.Classes {
		was[c.Name] = c
	}
	var out []Growth
	for _, c := range after.Classes {
		b := was[c.Name]
		g := Growth{Class: c.Name, Instances: c.Instances - b.Instances, ShallowBytes: c.ShallowBytes - b.ShallowBytes,
			Before: b.Instances, After: c.Instances}
		if g.ShallowBytes > 0 || g.ShallowBytes == 0 && g.Instances > 0 {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b Growth) int {
		switch {
		case a.ShallowBytes != b.ShallowBytes:
			return cmp64(b.ShallowBytes, a.ShallowBytes)
		case a.Instances != b.Instances:
			return cmp64(b.Instances, a.Instances)
		}
		return strings.Compare(a.Class, b.Class)
	})
	return out
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String is the growth as a failing memory gate quotes it:
// "+1,200 com.example.feed.ImageHolder (+37.5 MiB)".
func (g Growth) String() string {
	return fmt.Sprintf("%s %s (%s)", signed(g.Instances, Thousands), g.Class, signed(g.ShallowBytes, Bytes))
}

func signed(v int64, f func(int64) string) string {
	if v < 0 {
		return "−" + f(-v)
	}
	return "+" + f(v)
}

// Thousands writes n with a comma between each group of three digits:
// 1200 → "1,200".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Bytes writes a size in binary units, to one decimal above a KiB:
// 512 → "512 B", 39321600 → "37.5 MiB".
func Bytes(n int64) string {
	const k = 1024
	switch {
	case n < k && n > -k:
		return strconv.FormatInt(n, 10) + " B"
	case n < k*k && n > -k*k:
		return strconv.FormatFloat(float64(n)/k, 'f', 1, 64) + " KiB"
	case n < k*k*k && n > -k*k*k:
		return strconv.FormatFloat(float64(n)/(k*k), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(k*k*k), 'f', 1, 64) + " GiB"
}
