package metrics

import (
	"os"
	"strings"
	"testing"
)

func TestBaseStep(t *testing.T) {
	for in, want := range map[string]string{
		"scroll":      "scroll",
		"scroll#2":    "scroll",
		"scroll#12":   "scroll",
		"a#b#3":       "a#b",
		"scroll#":     "scroll#",
		"scroll#2a":   "scroll#2a",
		"#2":          "#2",
		"open feed#2": "open feed",
	} {
		if got := BaseStep(in); got != want {
			t.Errorf("BaseStep(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBenchToken(t *testing.T) {
	if got, want := BenchToken("open feed/x=1\tnow\n"), "open_feed_x_1_now_"; got != want {
		t.Errorf("BenchToken = %q, want %q", got, want)
	}
}

// The catalogue is one list every layer reads: each name once, each entry
// complete, benchmark units that benchstat reads as one token, and every
// metric a budget file can name.
func TestCatalogue(t *testing.T) {
	seen := map[Name]bool{}
	for _, d := range Catalogue() {
		if seen[d.Name] {
			t.Errorf("%s listed twice", d.Name)
		}
		seen[d.Name] = true
		if d.Unit == "" || d.Doc == "" || d.Family == 0 {
			t.Errorf("%s: incomplete entry %+v", d.Name, d)
		}
		if d.BenchUnit != "" && (BenchToken(d.BenchUnit) != d.BenchUnit && !strings.HasSuffix(d.BenchUnit, "/min") || d.BenchScale == 0) {
			t.Errorf("%s: benchmark unit %q × %v", d.Name, d.BenchUnit, d.BenchScale)
		}
		if got, ok := Lookup(d.Name); !ok || got.Name != d.Name || !d.Name.Known() {
			t.Errorf("%s: Lookup %+v %v", d.Name, got, ok)
		}
		// Context metrics never regress, and the default gates and
		// summaries are about figures that can.
		if d.Better == Neither && (d.Gate || d.Budget) {
			t.Errorf("%s: a context metric in the default budgets or gates", d.Name)
		}
	}
	if Name("jnak").Known() || Name("jnak").Def().Unit != "" {
		t.Error("an unknown name is known")
	}
	// A figure's percentiles are one entry: "frame_time_p50/p90/p95/p99".
	if !strings.Contains(Names(), "frame_time_p50/p90/p95/p99") || strings.Count(Names(), ", ")+1+strings.Count(Names(), "/") != len(Catalogue()) {
		t.Errorf("Names() = %q", Names())
	}
	// Floors are what improves upwards, and the context counts.
	for n, floor := range map[Name]bool{FPS: true, Frames: true, CPUIntervals: true, Jank: false, PSSMax: false} {
		if n.Def().Floor() != floor {
			t.Errorf("%s: floor %v, want %v", n, !floor, floor)
		}
	}
	// Catalogue hands out a copy.
	c := Catalogue()
	c[0].Unit = "x"
	if Catalogue()[0].Unit == "x" {
		t.Error("Catalogue returned the catalogue itself")
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{{18.245, "ms", "18.25ms"}, {35, "%", "35%"}, {5, "frames", "5"}, {48.213, "fps", "48.21"}, {2003, "B", "2003B"}, {-0.004, "KiB/min", "0KiB/min"},
		// A frame overrun below zero: done 2.42 ms before its deadline.
		{-2.4217308, "ms", "-2.42ms"}, {-10.255, "ms", "-10.26ms"}} {
		if got := FormatValue(tc.v, tc.unit); got != tc.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

// The README's catalogue table lists every metric once, with the unit and
// direction the catalogue gives it, and no other: the reader's definitions
// cannot drift from the code's.
func TestREADMECatalogue(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const header = "| metric | unit | better | what |\n|---|---|---|---|\n"
	_, table, ok := strings.Cut(string(b), header)
	if !ok {
		t.Fatalf("README.md has no catalogue table (%q)", header)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	better := map[string]Better{"—": Neither, "lower": Lower, "higher": Higher}
	seen := map[Name]bool{}
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) != 6 {
			t.Fatalf("row %q: want 4 cells", row)
		}
		unit, dir := strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])
		for _, f := range strings.Split(cells[1], ",") {
			n := Name(strings.Trim(strings.TrimSpace(f), "`"))
			d, known := Lookup(n)
			switch {
			case !known:
				t.Errorf("README lists %q, which the catalogue lacks", n)
			case seen[n]:
				t.Errorf("README lists %q twice", n)
			case d.Unit != unit || better[dir] != d.Better || better[dir] == Neither && dir != "—":
				t.Errorf("README: %s in %q, better %q; the catalogue says %q, %v", n, unit, dir, d.Unit, d.Better)
			}
			seen[n] = true
		}
	}
	for _, d := range Catalogue() {
		if !seen[d.Name] {
			t.Errorf("README's catalogue table lacks %s (%s)", d.Name, d.Doc)
		}
	}
}
