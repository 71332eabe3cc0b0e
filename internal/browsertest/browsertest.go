// Package browsertest opens perfgate's pages in headless Chromium for the
// tests that check what a person sees: the boxes of the charts' texts as
// laid out, the links as the browser resolves them, the headings, and
// screenshots. A machine without a browser skips those tests, saying why,
// unless PERFGATE_REQUIRE_BROWSER=1 makes that a failure.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Chromium returns the headless browser's path (Debian's chromium, or the
// Chrome that CI runners ship), installing Debian's chromium when none is
// there and the test runs as root; otherwise it skips, or fails under
// PERFGATE_REQUIRE_BROWSER=1.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	why := "chromium is not installed"
	if os.Geteuid() == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "apt-get", "install", "-y", "-qq", "chromium").CombinedOutput()
		if p, lerr := exec.LookPath("chromium"); lerr == nil {
			return p
		}
		why = fmt.Sprintf("apt-get install -y chromium failed: %v: %.300s", err, out)
	}
	if os.Getenv("PERFGATE_REQUIRE_BROWSER") == "1" {
		t.Fatalf("%s and PERFGATE_REQUIRE_BROWSER=1", why)
	}
	t.Skipf("%s (install it: apt-get install -y chromium); set PERFGATE_REQUIRE_BROWSER=1 to make this a failure", why)
	return ""
}

// Headless runs chromium on page with the flags that keep it off the
// network, and returns its stdout and stderr.
func Headless(t testing.TB, bin, page string, extra ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0"}, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
	}
	return out.String(), errb.String()
}

// Render opens page once in a window of size ("width,height"): it
// returns the DOM after the page's scripts ran, chromium's log, and the
// count of each colour's pixels in a screenshot of the window, saved in
// shot.
func Render(t testing.TB, bin, page, shot, size string) (dom, logs string, colours map[[3]uint8]int) {
	t.Helper()
	dom, logs = Headless(t, bin, page, "--dump-dom", "--screenshot="+shot, "--window-size="+size, "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	return dom, logs, PaletteOf(img)
}

// PaletteOf counts the pixels of each colour.
func PaletteOf(img image.Image) map[[3]uint8]int {
	out := map[[3]uint8]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			out[[3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}]++
		}
	}
	return out
}

// probeJS measures what a person sees on a page: every SVG's class and
// data-metric, every SVG text's box and attributes, the links as the
// browser resolves them, the comparison strips' tick labels, the
// headings.
const probeJS = `<script>
const out = {svgs: [], texts: [], links: [], ticks: [], headings: []};
document.querySelectorAll('svg').forEach((s, si) => {
  out.svgs.push({class: s.getAttribute('class') || '', metric: s.dataset.metric || '', chart: s.dataset.chart || ''});
  s.querySelectorAll('text').forEach(t => {
    const r = t.getBoundingClientRect();
    out.texts.push({svg: si, text: t.textContent, x: r.left, y: r.top, w: r.width, h: r.height,
      class: t.getAttribute('class') || '', anchor: t.getAttribute('text-anchor') || '', at: t.getAttribute('x') || ''});
    if (t.classList.contains('tick')) out.ticks.push({svg: si, metric: t.dataset.metric, row: t.dataset.row, text: t.textContent});
  });
});
document.querySelectorAll('a[href]').forEach(a => out.links.push({text: a.textContent, href: new URL(a.getAttribute('href'), document.baseURI).href, raw: a.getAttribute('href')}));
document.querySelectorAll('h1, h2, h3').forEach(h => out.headings.push(h.textContent.replace(/\s+/g, ' ').trim()));
const p = document.createElement('pre'); p.id = 'probe'; p.textContent = JSON.stringify(out); document.body.appendChild(p);
</script>`

// Probed is what the probe saw on a page.
type Probed struct {
	SVGs []struct{ Class, Metric, Chart string }
	// Texts are the SVG texts, by the index of their SVG in SVGs: the
	// box on the page, the class, text-anchor and x attributes.
	Texts []Text
	// Links are the page's links: their text, the URL the browser
	// resolves and the href as written.
	Links []struct{ Text, Href, Raw string }
	// Ticks are the comparison strips' tick labels (class "tick").
	Ticks []struct {
		SVG               int
		Metric, Row, Text string
	}
	Headings []string

	page string // the probed copy's path
}

// Text is one SVG text as laid out.
type Text struct {
	SVG               int
	Text              string
	X, Y, W, H        float64
	Class, Anchor, At string
}

var probeRE = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// Probe opens a copy of page, beside it so its links resolve alike, with
// the probe's script added, in headless Chromium (a window 1100 pixels
// wide), and returns what the script saw.
func Probe(t testing.TB, bin, page string) Probed {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	cp := strings.TrimSuffix(page, ".html") + ".probe.html"
	if err := os.WriteFile(cp, []byte(strings.Replace(string(b), "</body>", probeJS+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(cp)
	dom, _ := Headless(t, bin, cp, "--dump-dom", "--window-size=1100,3000")
	m := probeRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s: the probe did not run", page)
	}
	var p Probed
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &p); err != nil {
		t.Fatalf("%s: the probe's output: %v", page, err)
	}
	p.page = cp
	return p
}

// Overlaps lists the pairs of texts of one SVG whose boxes overlap.
func (p Probed) Overlaps() []string {
	var out []string
	for i, a := range p.Texts {
		for _, b := range p.Texts[i+1:] {
			if a.SVG == b.SVG && a.W > 0 && b.W > 0 && a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				out = append(out, fmt.Sprintf("%q at (%.0f,%.0f %.0f×%.0f) and %q at (%.0f,%.0f %.0f×%.0f)", a.Text, a.X, a.Y, a.W, a.H, b.Text, b.X, b.Y, b.W, b.H))
			}
		}
	}
	return out
}

// BrokenLinks lists the links, as the browser resolved them, that lead to
// no regular file, and returns the files the others lead to by their
// links' texts; links to the web and within the page are left out.
func (p Probed) BrokenLinks() (broken []string, files map[string][]string) {
	files = map[string][]string{}
	for _, l := range p.Links {
		u, err := url.Parse(l.Href)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%q (%s): %v", l.Text, l.Raw, err))
			continue
		}
		if u.Scheme == "https" || u.Scheme == "http" || u.Fragment != "" && u.Path == filepath.ToSlash(p.page) {
			continue
		}
		f := filepath.FromSlash(u.Path)
		if fi, err := os.Stat(f); u.Scheme != "file" || err != nil || !fi.Mode().IsRegular() {
			broken = append(broken, fmt.Sprintf("%q (%s) leads to no file: %s", l.Text, l.Raw, l.Href))
			continue
		}
		files[l.Text] = append(files[l.Text], f)
	}
	return broken, files
}
