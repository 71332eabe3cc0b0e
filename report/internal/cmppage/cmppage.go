// Package cmppage draws the parts of perfgate's comparison page that need
// room of their own: the links a page writes to files beside it, the
// metric scales shared by every row of a metric, and the metric strips.
package cmppage

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// Href is the link, from a page written into pageDir, to file: the path
// from the page's folder to the file, made absolute first against the
// working directory, slash-separated and escaped (a space, "#" or "%" in a
// name stays part of it). Without a page folder, or when none leads from
// it to the file (another volume), it is the file's absolute file URL,
// which opens on this machine wherever the page goes. Never a URL the page
// template would refuse.
func Href(pageDir, file string) template.URL {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	if pageDir != "" {
		if pd, err := filepath.Abs(pageDir); err == nil {
			if rel, err := filepath.Rel(pd, abs); err == nil {
				return template.URL((&url.URL{Path: filepath.ToSlash(rel)}).String())
			}
		}
	}
	return template.URL((&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
}

// Beside is where a file a Result names lies now: beside the Result
// (resultPath's folder) when a file of its base name is there, as the
// session wrote it into the results folder and wherever that folder went
// since; else file itself, when it exists; "" when neither does.
func Beside(resultPath, file string) string {
	if file == "" {
		return ""
	}
	if resultPath != "" {
		p := filepath.Join(filepath.Dir(resultPath), filepath.Base(file))
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() {
		return file
	}
	return ""
}

// Scale is one metric's axis, shared by every row of the metric on a page.
type Scale struct {
	Lo, Hi float64
	Ticks  []float64
}

// NewScale is the axis for a metric's values: from zero (or the lowest
// value, when one is negative) to the highest, with ticks at round steps,
// whole numbers only for a count. Starting at zero, a value's distance
// from the axis's start is proportional to the value, so the gap between
// two medians, set against that distance, shows the relative change: a
// 0.3 % rise of a frame time is a hair, 0 → 5 janks the whole width.
func NewScale(values []float64, count bool) Scale {
	lo, hi := 0.0, math.Inf(-1)
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(hi, -1) || hi <= lo {
		hi = lo + 1
	}
	step := niceStep((hi - lo) / 4)
	if count {
		step = math.Max(1, math.Round(step))
	}
	s := Scale{Lo: math.Floor(lo/step) * step, Hi: math.Ceil(hi/step) * step}
	for v := s.Lo; v <= s.Hi+step/2; v += step {
		s.Ticks = append(s.Ticks, math.Round(v/step)*step)
	}
	return s
}

// niceStep is the round step (1, 2 or 5 times a power of ten) nearest
// above raw.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// Side is one side of a row: its runs' values, median and confidence
// interval (NaN or infinite ends when there is none).
type Side struct {
	Values         []float64
	Center, Lo, Hi float64
}

// Row is one metric of a step on the strips.
type Row struct {
	Metric, Unit string
	// Change is the change's size and verdict ("+36.8 % REGRESSION"),
	// drawn in Colour; Centres the medians with their intervals; Basis the
	// p-value and what it rests on.
	Change, Colour, Centres, Basis string
	Base, New                      Side
	Scale                          Scale
}

// Layout of the strips: text in the left column, the axis in the right
// one, each row's tick labels under its axis.
const (
	width, rowH  = 1000, 70
	plotX0, plot = 480, 420
	colBase      = "#7f7f7f"
	colNew       = "#1f77b4"
)

// Strips draws one row per metric: on the left its name and unit, the
// change and the gate's verdict, the medians with their confidence
// intervals, the p-value; on the right, on the metric's scale, every
// run's value as a dot (base grey, new blue), each side's median as a tick
// and its interval as a bar, each saying what it is on hover.
func Strips(label string, rows []Row) string {
	var b strings.Builder
	h := 30 + len(rows)*rowH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="compare-metrics" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		width, h, width, h, esc("metrics of "+label))
	b.WriteString(`<text x="4" y="16" font-weight="bold">Every metric on its own scale from 0, shared by its rows: base (grey) and new (blue) runs, medians, 95% CIs</text>`)
	for i, r := range rows {
		y := 30 + i*rowH
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="0" y="%d" width="%d" height="%d" fill="#f6f8fa"/>`, y, width, rowH)
		}
		fmt.Fprintf(&b, `<text x="4" y="%d" font-size="12" font-weight="bold">%s (%s)</text>`, y+15, esc(r.Metric), esc(r.Unit))
		fmt.Fprintf(&b, `<text class="verdict" x="4" y="%d" font-size="12" fill="%s">%s</text>`, y+31, r.Colour, esc(r.Change))
		fmt.Fprintf(&b, `<text x="4" y="%d" font-size="11">%s</text>`, y+46, esc(r.Centres))
		fmt.Fprintf(&b, `<text x="4" y="%d" font-size="11" fill="#555">%s</text>`, y+61, esc(r.Basis))
		r.axis(&b, float64(y+26), i)
	}
	b.WriteString("</svg>")
	return b.String()
}

// axis draws row's scale at height mid, its ticks labelled below (each
// saying its metric and row), and both sides on it.
func (r Row) axis(b *strings.Builder, mid float64, row int) {
	s := r.Scale
	X := func(v float64) float64 { return plotX0 + (v-s.Lo)/(s.Hi-s.Lo)*plot }
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ccc"/>`, plotX0, plotX0+plot, mid, mid)
	for _, t := range s.Ticks {
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ccc"/>`, X(t), X(t), mid+12, mid+16)
		fmt.Fprintf(b, `<text class="tick" data-metric="%s" data-row="%d" x="%.1f" y="%.1f" font-size="10" fill="#666" text-anchor="middle">%s</text>`, esc(r.Metric), row, X(t), mid+27, esc(metrics.FormatValue(t, "")))
	}
	side := func(sd Side, dy float64, col, name string) {
		yy := mid + dy
		if finite(sd.Lo) && finite(sd.Hi) && sd.Hi > sd.Lo {
			fmt.Fprintf(b, `<rect class="ci" x="%.1f" y="%.1f" width="%.1f" height="6" fill="%s" fill-opacity="0.25"><title>%s: 95%% CI %s … %s</title></rect>`,
				X(sd.Lo), yy-3, X(sd.Hi)-X(sd.Lo), col, name, esc(metrics.FormatValue(sd.Lo, r.Unit)), esc(metrics.FormatValue(sd.Hi, r.Unit)))
		}
		if finite(sd.Center) {
			fmt.Fprintf(b, `<line class="median" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"><title>%s: median %s</title></line>`,
				X(sd.Center), X(sd.Center), yy-6, yy+6, col, name, esc(metrics.FormatValue(sd.Center, r.Unit)))
		}
		for j, v := range sd.Values {
			fmt.Fprintf(b, `<circle class="run" cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.7"><title>%s run %d: %s</title></circle>`,
				X(v), yy, col, name, j+1, esc(metrics.FormatValue(v, r.Unit)))
		}
	}
	side(r.Base, -5, colBase, "base")
	side(r.New, 5, colNew, "new")
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func esc(s string) string { return html.EscapeString(s) }

// Run is one run of a side on the page, with links to its files.
type Run struct {
	Side   string
	N      int
	Device string
	Links  []Link
}

// Link is a link to a file: what it is and where.
type Link struct {
	Text string
	Href template.URL
}

// Files are the links, from a page in pageDir, to the files of a run that
// exist: its HTML report (ReportFile, else the page beside its Result),
// its Result, its Perfetto trace and its main-thread stacks (the causes'
// samples), each found as Beside finds it.
func Files(pageDir string, r *result.Result) []Link {
	page := r.ReportFile
	if page == "" && r.Path != "" {
		page = strings.TrimSuffix(r.Path, ".json") + ".html"
	}
	files := [][2]string{{"report", page}, {"Result", r.Path}}
	if r.Trace != nil {
		files = append(files, [2]string{"Perfetto trace", r.Trace.File})
	}
	if r.Causes != nil {
		files = append(files, [2]string{"main-thread stacks", r.Causes.StacksFile})
	}
	var out []Link
	for _, f := range files {
		if p := Beside(r.Path, f[1]); p != "" {
			out = append(out, Link{Text: f[0], Href: Href(pageDir, p)})
		}
	}
	return out
}
