package report_test

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/hprof"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

const viewsLeak = "com.perfgate.demo.feed.ImageHolder"

// viewsSessions run, on phones with power rails whose debuggable app
// leaks ImageHolders as it scrolls, two sessions with the energy lane:
// two cold starts with a trace (launches), and a scroll of the app
// already running with heap dumps (leak: the dumps need one process
// throughout). They return the Results and the phones' truth.
func viewsSessions(t *testing.T) (launches, leak *result.Result, truth simdevice.TruthTotals, dumps []simdevice.TruthDump) {
	t.Helper()
	dir := t.TempDir() // the test's, not the bubble's: the Result's files outlive the bubble
	wl, err := simdevice.Preset("slow-start")
	if err != nil {
		t.Fatal(err)
	}
	wl.Debuggable = true
	wl.Startup.ColdMs, wl.Startup.FullyDrawnMs = 1200, 1500
	wl.Startup.Cold = simdevice.ColdStart{BindApplicationMs: 520, Sections: []simdevice.StartSection{{Name: "com.example.App.onCreate", Ms: 380}, {Name: "com.example.Db.open", Ms: 60, IOMs: 40}}}
	wl.Phases[0].Leak = &simdevice.Leak{Class: viewsLeak, PerSecond: 400, Bytes: 48}
	cfg := simdevice.Config{Workload: wl, RefreshHz: 60, Quirks: simdevice.Quirks{Battery: simdevice.BatteryQuirks{PowerRails: true}}}
	simtest.Bubble(t, func(t *testing.T) {
		sim, srv := simtest.ServePipe(t, cfg)
		sc := scenario.Start(t, srv.Open(sim.Serial()), wl.Package, perftest.WithResultsDir(filepath.Join(dir, "launches")), perftest.WithTrace(perftest.TraceConfig{}))
		sc.Step("launch", scenario.LaunchWith(scenario.Cold, 2, scenario.StartupOptions{FullyDrawn: 4 * time.Second}))
		launches, truth = sc.Stop(), sim.World().Truth()
	})
	simtest.Bubble(t, func(t *testing.T) {
		sim, srv := simtest.ServePipe(t, cfg)
		d := srv.Open(sim.Serial())
		simtest.Launch(t, d, sim)
		heap := func(c *perftest.Config) { c.HeapDumps = true }
		sc := scenario.Start(t, d, wl.Package, perftest.WithResultsDir(filepath.Join(dir, "leak")), heap)
		sc.Step("scroll", scenario.Sleep(3*time.Second))
		sc.Step("rest", scenario.Sleep(time.Second))
		leak, dumps = sc.Stop(), sim.World().TruthDumps()
	})
	if t.Failed() {
		t.FailNow()
	}
	return launches, leak, truth, dumps
}

// The session page shows what a simulated session measured, as the
// Result has it and as the phone made it: each launch's startup phases
// (their lengths the phone's, bindApplication's longest slice the app's
// section), the heap dumps linked beside the Result with the leaking
// class on top, each step's power rails, and the session's power reads
// with its steps marked.
func TestSessionPageViewsAreThePhones(t *testing.T) {
	launches, r, truth, dumps := viewsSessions(t)
	var b bytes.Buffer
	dir := filepath.Dir(r.Path)
	if err := report.WriteHTML(&b, []*result.Result{launches}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	charts(t, b.String())
	checkWellFormed(t, regexp.MustCompile(`(?s)<h4>Startup phases.*</table>`).FindString(b.String()))
	page := html.UnescapeString(b.String())

	// Startup phases: one table a launch, each phase as long as the
	// phone's.
	tables := regexp.MustCompile(`(?s)<table class="startup-phases" data-launch="\d+">.*?</table>`).FindAllString(page, -1)
	if len(tables) != 2 || len(truth.Startups) != 2 {
		t.Fatalf("%d startup tables, the phone launched %d times; not measured %q", len(tables), len(truth.Startups), launches.Step("launch").Startup.PhasesNotMeasured)
	}
	for i, ts := range truth.Startups {
		for _, p := range ts.Phases {
			row := fmt.Sprintf(`<tr><td>%s</td><td class="num">+%.1f ms</td><td class="num">%.1f ms</td>`, p.Name, float64(p.StartNs-ts.Phases[0].StartNs)/1e6, float64(p.EndNs-p.StartNs)/1e6)
			if !strings.Contains(tables[i], row) {
				t.Errorf("launch %d: no row %q in %s", i+1, row, tables[i])
			}
			if len(p.Sections) > 0 && !strings.Contains(tables[i], fmt.Sprintf("<td>%.1f ms %s</td>", float64(p.Sections[0].DurNs)/1e6, p.Sections[0].Name)) {
				t.Errorf("launch %d: %s lacks its longest section %s", i+1, p.Name, p.Sections[0].Name)
			}
		}
	}

	// Heap dumps: both files linked from the page's folder, and the
	// leaking class first among those that grew, by the phone's dumps.
	b.Reset()
	if err := report.WriteHTML(&b, []*result.Result{r}, report.Options{PageDir: dir}); err != nil {
		t.Fatal(err)
	}
	charts(t, b.String())
	checkWellFormed(t, regexp.MustCompile(`(?s)<h3>Heap dumps</h3>.*?</table>\n.*?</table>`).FindString(b.String()))
	page = html.UnescapeString(b.String())
	h := r.HeapDumps
	if h == nil || h.First == nil || h.Last == nil || len(h.Grew) == 0 || len(dumps) != 2 {
		t.Fatalf("heap dumps %+v; the phone wrote %d", h, len(dumps))
	}
	for _, d := range []*result.HeapDump{h.First, h.Last} {
		if _, err := os.Stat(filepath.Join(dir, d.File)); err != nil || !strings.Contains(page, fmt.Sprintf(`<a href="%s"><code>%s</code></a>`, d.File, d.File)) {
			t.Errorf("dump %s (%v) not linked relative to the page", d.File, err)
		}
	}
	// The leaking class in either dump the phone wrote (none: zero).
	var n, sz [2]int64
	for i, d := range dumps {
		if k := slices.IndexFunc(d.Classes, func(c simdevice.TruthClass) bool { return c.Name == viewsLeak }); k >= 0 {
			n[i], sz[i] = d.Classes[k].Instances, d.Classes[k].ShallowBytes
		}
	}
	n0, n1, b0, b1 := n[0], n[1], sz[0], sz[1]
	top := fmt.Sprintf(`<table class="heap-growth"><tr><th>class</th><th>instances</th><th>first → last</th><th>shallow size</th></tr>
<tr><td><code>%s</code></td><td class="num">+%s</td><td class="num">%s → %s</td><td class="num">+%s</td></tr>`,
		viewsLeak, hprof.Thousands(n1-n0), hprof.Thousands(n0), hprof.Thousands(n1), hprof.Bytes(b1-b0))
	if n1 <= n0 || !strings.Contains(page, top) {
		t.Errorf("the phone's leak %d → %d is not the top row:\n%s", n0, n1, top)
	}

	// Power rails: each step's bars are its figures.
	rails := regexp.MustCompile(`(?s)<svg[^>]*data-chart="power-rails".*?</svg>`).FindAllString(page, -1)
	if len(rails) != len(r.Steps) {
		t.Fatalf("%d rail charts for %d steps", len(rails), len(r.Steps))
	}
	for i, st := range r.Steps {
		if st.Energy == nil || len(st.Energy.Rails) == 0 {
			t.Fatalf("step %s: no rails: %+v", st.Name, st.Energy)
		}
		for _, n := range metrics.RailEnergyNames {
			g := metrics.RailGroup(n)
			v, ok := st.Energy.Rails[g]
			want := fmt.Sprintf("<title>%s: %.1f mJ ± %.3g</title>", g, v, st.Energy.RailsErrorMJ[g])
			if !ok {
				want = ">no " + g + " rail</text>"
			}
			if !strings.Contains(rails[i], want) {
				t.Errorf("step %s: no %q", st.Name, want)
			}
		}
	}

	// The session's power: one point a read, one band a step.
	ps := regexp.MustCompile(`(?s)<svg[^>]*data-chart="power-session".*?</svg>`).FindAllString(page, -1)
	if len(ps) != 1 || len(r.Power) == 0 {
		t.Fatalf("%d session power charts, %d reads", len(ps), len(r.Power))
	}
	if got := strings.Count(ps[0], "<circle"); got != len(r.Power) {
		t.Errorf("%d points, %d reads", got, len(r.Power))
	}
	for _, st := range r.Steps {
		if !strings.Contains(ps[0], "<title>step "+st.Name+"</title>") {
			t.Errorf("step %s not marked", st.Name)
		}
	}
}

// checkWellFormed checks that the tables, rows, cells, paragraphs and
// links of a part of the page close as often as they open.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	if page == "" {
		t.Fatal("no such part of the page")
	}
	for _, tag := range []string{"table", "tr", "section", "p", "td", "a"} {
		open := len(regexp.MustCompile(`<`+tag+`[\s>]`).FindAllString(page, -1))
		if shut := strings.Count(page, "</"+tag+">"); open != shut {
			t.Errorf("<%s> opened %d times, closed %d", tag, open, shut)
		}
	}
}
