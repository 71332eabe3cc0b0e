package report_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// causeSession measures the janky-feed app from its cold start: a scroll
// step holding at least four frames a cause made slow, by the phone's
// truth. It runs in a bubble (simtest.Bubble) on the phone's pure-Go adb
// server over pipes, so the step waits for those frames on the bubble's
// clock.
func causeSession(t *testing.T) (r *result.Result) {
	t.Helper()
	wl, err := simdevice.Preset("janky-feed")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() // the test's, not the bubble's: the Result's files outlive the bubble
	simtest.Bubble(t, func(t *testing.T) {
		dev, srv := simtest.ServePipe(t, simdevice.Config{API: 33, RefreshHz: 60, Workload: wl, Serial: "sim-causes"})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d := srv.Open(dev.Serial())
		s, err := perftest.NewSession(ctx, d, perftest.Config{Package: simdevice.PresetPackage, Name: "TestFeed", WaitForApp: true,
			ResultFile: filepath.Join(dir, "result.json")})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := d.Shell(ctx, "monkey -p "+simdevice.PresetPackage+" -c android.intent.category.LAUNCHER 1"); err != nil || r.ExitCode != 0 {
			t.Fatalf("monkey: %v %q", err, r.Stderr)
		}
		causeFrames := func() int {
			n := 0
			for _, f := range dev.World().TruthFrames() {
				if f.Cause != "" {
					n++
				}
			}
			return n
		}
		s.Step("scroll", func() {
			for causeFrames() < 5 {
				if ctx.Err() != nil {
					t.Fatal("no slow frames in a minute")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		r = s.Stop()
		if r.Error != "" {
			t.Fatal(r.Error)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return r
}

// The HTML shows why a step janked next to its frame chart: the top
// blockers and stacks, and a row per janky frame that the chart's marks
// link to.
func TestHTMLCauses(t *testing.T) {
	t.Parallel()
	r := causeSession(t)
	st := r.Step("scroll")
	c := st.Causes
	assert.Assert(t, c != nil && len(c.TopBlockers) > 0 && len(c.TopStacks) > 0 && len(c.Frames) > 0, "causes %+v", c)
	var b bytes.Buffer
	assert.NilError(t, report.WriteHTML(&b, []*result.Result{r}, report.Options{}))
	page := b.String()

	assert.Assert(t, strings.Contains(page, "<b>Why it janked</b>: "+htmlEsc(c.Line())), "no summary line %q", c.Line())
	top := c.TopBlockers[0]
	assert.Assert(t, strings.Contains(page, fmt.Sprintf("<td><code>%s</code></td><td class=\"num\">%d</td><td class=\"num\">%d</td>", htmlEsc(top.Where()), top.Count, top.TotalMs)),
		"no row for the top blocker %+v", top)
	assert.Assert(t, strings.Contains(page, "<code>"+htmlEsc(c.TopStacks[0].AppFrame)+"</code></td><td class=\"num\">"+fmt.Sprint(c.TopStacks[0].Samples)+"</td>"))
	assert.Assert(t, strings.Contains(page, "<code>"+r.Causes.StacksFile+"</code>"), "no folded stacks file %q", r.Causes.StacksFile)

	// Every janky frame has a row, and every mark of the frame chart that
	// has a cause links to it.
	rows := regexp.MustCompile(`<tr id="(r1-s1-jank\d+)">`).FindAllStringSubmatch(page, -1)
	assert.Equal(t, len(rows), len(c.Frames))
	cs := charts(t, page)
	assert.Equal(t, cs[0].Chart, "frametime")
	links := regexp.MustCompile(`<a href="#(r1-s1-jank\d+)"><circle class="jank jank-deadline"`).FindAllStringSubmatch(page, -1)
	deadline := 0
	for _, f := range c.Frames {
		if slices.Contains(f.Janks, "deadline_missed") {
			deadline++
		}
	}
	assert.Equal(t, len(links), deadline)
	for _, l := range links {
		assert.Assert(t, slices.ContainsFunc(rows, func(r []string) bool { return r[1] == l[1] }), "link to #%s leads nowhere", l[1])
	}
	linked := 0
	for _, m := range cs[0].Linked {
		if m.Class == "jank jank-deadline" {
			linked++
		}
	}
	assert.Equal(t, linked, deadline)
}

func htmlEsc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
