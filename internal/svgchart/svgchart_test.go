package svgchart

import (
	"encoding/xml"
	"strings"
	"testing"
)

// Neighbouring axis ticks never print alike: a CPU axis of 0 … 0.01 %
// once read "0, 0, 0.01, 0.01".
func TestTickLabelsDistinct(t *testing.T) {
	for _, top := range []float64{0.0012, 0.012, 0.3, 7, 130, 2.2e5} {
		step := NiceStep(top)
		seen := map[string]bool{}
		for i := 0; float64(i)*step <= top+step/2; i++ {
			l := TickLabel(float64(i)*step, step)
			if seen[l] {
				t.Errorf("axis 0 … %g (step %g): tick %q twice", top, step, l)
			}
			seen[l] = true
		}
	}
}

// A tick prints the decimals its step needs and no trailing zeros.
func TestTickLabel(t *testing.T) {
	for _, tc := range []struct {
		v, step float64
		want    string
	}{{0, 0.25, "0"}, {0.5, 0.25, "0.5"}, {0.75, 0.25, "0.75"}, {5, 2.5, "5"}, {7.5, 2.5, "7.5"},
		{0.0075, 0.0025, "0.0075"}, {200, 50, "200"}, {-0.0001, 0.5, "0"}, {1.25, 0, "1.25"}, {3, -1, "3"}} {
		if got := TickLabel(tc.v, tc.step); got != tc.want {
			t.Errorf("TickLabel(%v, %v) = %q, want %q", tc.v, tc.step, got, tc.want)
		}
	}
}

// A chart is well-formed XML whatever its text holds, escapes it, and
// draws a link only where a dot has one.
func TestChartMarkup(t *testing.T) {
	c := New(Frame{W: 200, H: 100, PadL: 20, PadR: 10, PadT: 10, PadB: 20}, "chart", "data-chart", `a"b`, "<title>")
	c.ScaleY(10, false)
	c.LinearX(4)
	c.Axes("ms")
	c.XTicks(0, 4, 1, "s")
	pts := [][2]float64{{0, 1}, {1, 5}, {4, 9}}
	c.Path("series", "x & y", len(pts), func(i int) (x, y float64) { return c.X(pts[i][0]), c.Y(pts[i][1]) }, Paint{Stroke: "#000", Width: 1.5})
	c.Dot(Dot{Class: "run", X: c.X(1), Y: c.Y(5), R: 3, Paint: Paint{Fill: "#000", Ghost: true}, Title: "1 < 2", Href: "r.html?a=1&b=2"})
	c.Dot(Dot{X: c.X(4), Y: c.Y(9), R: 2})
	c.Rule("budget", "budget ≤ 8", "#f0f", c.Y(8), 24, "start")
	c.Band("gap", c.X(2), c.X(2), "#fcc", "failed tick")
	c.Group("older", "span", func() { c.Line("", 30, 40, 30, 60, Paint{Stroke: "#00f", Opacity: 0.35}, "") })
	svg := c.End()
	var doc struct {
		Paths []struct {
			D string `xml:"d,attr"`
		} `xml:"path"`
		Linked []struct {
			Title string `xml:"title"`
		} `xml:"a>circle"`
		Circles []struct{} `xml:"circle"`
		Rects   []struct {
			Width string `xml:"width,attr"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, svg)
	}
	if len(doc.Linked) != 1 || doc.Linked[0].Title != "1 < 2" || len(doc.Circles) != 1 {
		t.Errorf("linked %v, plain %d circles:\n%s", doc.Linked, len(doc.Circles), svg)
	}
	if len(doc.Rects) != 1 || doc.Rects[0].Width != "1.5" {
		t.Errorf("an empty gap is not 1.5 pixels wide: %v", doc.Rects)
	}
	for _, want := range []string{`data-chart="a&#34;b"`, `aria-label="&lt;title&gt;"`, `data-series="x &amp; y"`, `href="r.html?a=1&amp;b=2"`, `fill-opacity="0"`, `>budget ≤ 8</text>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %s:\n%s", want, svg)
		}
	}
	if c := New(Frame{W: 100, H: 50}, "trend", "data-metric", "fps", "fps").NoData("no runs"); !strings.Contains(c, `class="nodata"`) || !strings.HasSuffix(c, "</svg>") {
		t.Errorf("no-data chart %s", c)
	}
}

// A lone point still shows, as a short tick.
func TestLonePoint(t *testing.T) {
	c := New(Frame{W: 100, H: 50}, "chart", "data-chart", "x", "x")
	c.ScaleY(1, false)
	c.Path("series", "", 1, func(int) (x, y float64) { return 5, 5 }, Paint{})
	if svg := c.End(); !strings.Contains(svg, `d="M5.0 5.0h2"`) {
		t.Errorf("lone point: %s", svg)
	}
}

// An axis that counts things ticks at whole numbers only: a step with 1
// jank frame is not drawn against 0.25, 0.5 and 1.05 frames; nor does a
// chart of 12 frames tick at 2.5.
func TestWholeAxis(t *testing.T) {
	for _, yMax := range []float64{1, 3, 12, 47} {
		c := New(Frame{W: 200, H: 100, PadL: 20, PadR: 10, PadT: 10, PadB: 20}, "chart", "data-chart", "jank", "jank")
		c.ScaleY(yMax, true)
		c.Axes("frames")
		var doc struct {
			Texts []string `xml:"text"`
		}
		if err := xml.Unmarshal([]byte(c.End()), &doc); err != nil {
			t.Fatal(err)
		}
		ticks := 0
		for _, s := range doc.Texts[:len(doc.Texts)-1] { // the last is the unit
			ticks++
			if strings.ContainsAny(s, ".") {
				t.Errorf("yMax %v: tick %q is not whole (%q)", yMax, s, doc.Texts)
			}
		}
		if ticks < 2 {
			t.Errorf("yMax %v: %d ticks", yMax, ticks)
		}
	}
}
