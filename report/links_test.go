package report_test

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

// brokenLinks resolves every href of the page file against the page's own
// file URL, as a browser does, and returns those that lead to no file,
// quoted with where they lead; links to the web and within the page are
// left out.
func brokenLinks(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	base := &url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	var bad []string
	for _, m := range hrefRE.FindAllStringSubmatch(string(b), -1) {
		h := html.UnescapeString(m[1])
		if strings.HasPrefix(h, "http") || strings.HasPrefix(h, "#") {
			continue
		}
		if p := fileOf(base, h); p == "" || !exists(p) {
			bad = append(bad, h+" → "+p)
		}
	}
	return bad
}

// fileOf is the file a link leads to from the page at base; "" when it is
// no file URL.
func fileOf(base *url.URL, href string) string {
	u, err := base.Parse(href)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

func exists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// A session's pages written into a reports folder apart from its results
// folder (PERFGATE_REPORT apart from PERFGATE_RESULTS) link its trace
// where it is, in the results folder.
func TestTraceLinkReportApartFromResults(t *testing.T) {
	t.Parallel()
	r := traceSession(t, simdevice.Quirks{})
	if r.Trace == nil || r.Trace.File == "" || !exists(r.Trace.File) {
		t.Fatalf("no trace file: %+v", r.Trace)
	}
	dir := filepath.Join(t.TempDir(), "reports")
	if err := report.WriteDir(dir, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if bad := brokenLinks(t, r.ReportFile); len(bad) > 0 {
		t.Errorf("%s: links to no file: %q", r.ReportFile, bad)
	}
	if b, _ := os.ReadFile(r.ReportFile); !strings.Contains(string(b), "perfetto-trace") {
		t.Errorf("%s links no trace", r.ReportFile)
	}
}

// A Result read from another working directory than the session's, whose
// trace name holds a space, "#" and "%": the pages written anywhere link
// the trace beside the Result, escaped, never a URL the template refuses.
func TestTraceLinkFromAnotherDirectory(t *testing.T) {
	root := t.TempDir()
	res := filepath.Join(root, "app", "perf-results")
	name := "TestFeed #1 50% cold.perfetto-trace"
	if err := os.MkdirAll(res, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res, name), []byte("trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The session ran in app/ with PERFGATE_RESULTS=perf-results.
	r := run(18, 60, 1000)
	r.Trace = &result.TraceInfo{File: filepath.Join("perf-results", name), SizeBytes: 5}
	if err := r.WriteFile(filepath.Join(res, "TestFeed.json")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	read, err := result.ReadResult(filepath.Join("app", "perf-results", "TestFeed.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"out", filepath.Join("app", "perf-results"), filepath.Join(root, "deep", "er")} {
		rr := *read
		if err := report.WriteDir(dir, &rr, report.Options{}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(rr.ReportFile)
		if strings.Contains(string(b), "ZgotmplZ") || !strings.Contains(string(b), "cold.perfetto-trace") {
			t.Errorf("%s: trace link refused or missing", rr.ReportFile)
		}
		if bad := brokenLinks(t, rr.ReportFile); len(bad) > 0 {
			t.Errorf("%s: links to no file: %q", rr.ReportFile, bad)
		}
	}
}
