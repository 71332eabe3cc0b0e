package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/atomicfile"
	"github.com/perfgate/perfgate/internal/envpath"
	"github.com/perfgate/perfgate/internal/filename"
	"github.com/perfgate/perfgate/report/internal/sessview"
	"github.com/perfgate/perfgate/result"
)

// EnvReportDir names the variable that asks every session to write its
// reports: PERFGATE_REPORT=dir.
const EnvReportDir = result.EnvReport

// WriteDir writes one session's reports into dir: <name>.html,
// <name>.md and <name>.json (the Result), where name is the test's name
// made a file name as its Result's is (filename.Of; "session-…" for one
// that would be "index" or nothing) and, in a test binary, "@" and the
// test's package ("TestFeed_scroll@example_test"; see
// result.TestPackage), then rewrites dir/index.html linking every
// session found there. The Result's name is chosen as
// result.Result.WriteInDir chooses it, so a same-named test of another
// package, a concurrent run, or another session of this run (name.2.json)
// never overwrites these reports, while a later run replaces an earlier
// one's. Test processes of one `go test ./...` run write to the same
// directory at once: each file is written whole and renamed into place,
// and the index is rebuilt until it lists everything present after its own
// rename, so the last writer's index is complete.
func WriteDir(dir string, r *result.Result, opts Options) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	name := pageStem(resultName(r))
	if pkg := result.TestPackage(); pkg != "" {
		name += "@" + strings.ReplaceAll(pkg, "/", ".")
	}
	if opts.Title == "" {
		opts.Title = resultName(r)
	}
	if r.Path != "" && sameDir(filepath.Dir(r.Path), dir) {
		// The session wrote its Result here already ($PERFGATE_REPORT
		// is $PERFGATE_RESULTS): the reports go beside it, no copy.
		name = strings.TrimSuffix(filepath.Base(r.Path), ".json")
	} else {
		cp := *r // WriteInDir records the path it wrote; r stays as it was.
		if err := cp.WriteInDir(dir, name); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
		name = strings.TrimSuffix(filepath.Base(cp.Path), ".json")
	}
	var h, m bytes.Buffer
	opts.PageDir = dir
	if err := WriteHTML(&h, []*result.Result{r}, opts); err != nil {
		return err
	}
	opts.HTMLLink = name + ".html"
	if err := WriteMarkdown(&m, []*result.Result{r}, opts); err != nil {
		return err
	}
	for _, f := range []struct {
		ext string
		b   []byte
	}{{".html", h.Bytes()}, {".md", m.Bytes()}} {
		if err := writeAtomic(filepath.Join(dir, name+f.ext), f.b); err != nil {
			return err
		}
	}
	r.ReportFile = filepath.Join(dir, name+".html")
	return writeIndex(dir, opts.Budgets)
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// ReportFromEnv writes r's reports into $PERFGATE_REPORT (a relative one
// from the module root, as PERFGATE_RESULTS) when it is set, and does
// nothing otherwise; a session calls it after writing its Result.
func ReportFromEnv(r *result.Result, opts Options) error {
	dir := envpath.Dir(EnvReportDir)
	if dir == "" {
		return nil
	}
	return WriteDir(dir, r, opts)
}

// pageStem is a session's name made the file name (without extension)
// of its reports, never that of the folder's index.html.
func pageStem(name string) string {
	s := filename.Of(name)
	if s == "" || s == "index" {
		s = "session-" + s
	}
	return s
}

// writeIndex rebuilds dir/index.html from the Results in dir, again
// whenever the directory changed while it wrote.
func writeIndex(dir string, budgets []budget.Limit) error {
	for range 20 {
		before, err := listResults(dir)
		if err != nil {
			return err
		}
		rows := make([]sessview.IndexRow, len(before))
		var read []*result.Result
		var at []int
		for i, base := range before {
			rows[i] = sessview.IndexRowOf(dir, base)
			r, err := result.ReadResult(filepath.Join(dir, base+".json"))
			if err != nil {
				// Another writer's file, or a stray one: list it, marked.
				rows[i].Unreadable = err.Error()
				continue
			}
			var steps []string
			for _, st := range r.Steps {
				steps = append(steps, st.Name)
			}
			rows[i].Steps, rows[i].Failed = strings.Join(steps, ", "), Failed(r, budgets)
			rows[i].Device = strings.TrimSpace(r.Device.Manufacturer + " " + r.Device.Model)
			read, at = append(read, r), append(at, i)
		}
		// Named as the session pages name them: device and run of each.
		for j, l := range sessview.Labels(read) {
			rows[at[j]].Name = l
		}
		b, err := sessview.Index(rows)
		if err != nil {
			return fmt.Errorf("report index: %w", err)
		}
		if err := writeAtomic(filepath.Join(dir, "index.html"), b); err != nil {
			return err
		}
		after, err := listResults(dir)
		if err != nil {
			return err
		}
		if slices.Equal(before, after) {
			return nil
		}
	}
	return fmt.Errorf("report index %s: the directory kept changing", dir)
}

// listResults returns the base names of the Result files in dir, sorted.
func listResults(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("report index: %w", err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") {
			out = append(out, strings.TrimSuffix(n, ".json"))
		}
	}
	return out, nil
}

// writeAtomic writes b to path through a temporary file and a rename, so a
// reader never sees half a file.
func writeAtomic(path string, b []byte) error {
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	return nil
}

// Reporter writes a session's reports into $PERFGATE_REPORT when that is
// set (ReportFromEnv). Give it to the sessions that should write reports:
// perftest.WithReporters(report.Reporter), or for every session of a test
// package perftest.UseReporters(report.Reporter) in TestMain.
var Reporter = result.Reporter{Name: "report", Env: result.EnvReport, Write: func(r *result.Result) error {
	return ReportFromEnv(r, Options{})
}}
