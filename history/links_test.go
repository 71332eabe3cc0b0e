package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testenv"
	resultpkg "github.com/perfgate/perfgate/result"
)

// A trend page links a run to its report only through a URL a click
// cannot run: a row of a shared history may hold anything. Runs of
// javascript: and data: links are drawn without a link.
func TestTrendLinksAreSafe(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	urls := []string{"javascript:alert(document.cookie)//", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>",
		"https://ci.example/run/1/TestFeed@feed.html", "reports/TestFeed@feed.html"}
	for i, u := range urls {
		r := result("TestFeed", "Pixel 7", t0.Add(time.Duration(i)*time.Hour), scrollStep("scroll", 18, 10))
		if _, err := s.Add(context.Background(), RunOf(r, Meta{ID: string(rune('a' + i)), Branch: "main", ReportURL: u})); err != nil {
			t.Fatal(err)
		}
	}
	var trends []Trend
	for _, tr := range trendsOf(t, s, Filter{Metric: "frame_time_p95"}) {
		trends = append(trends, tr)
	}
	dir := t.TempDir()
	if err := WritePages(dir, trends, PageOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "trend-frame_time_p95.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := strings.ToLower(string(b))
	if strings.Contains(page, `href="javascript:`) || strings.Contains(page, `href="data:`) {
		t.Errorf("the trend page links a script:\n%s", page)
	}
	for _, ok := range []string{`href="https://ci.example/run/1/testfeed@feed.html"`, `href="reports/testfeed@feed.html"`} {
		if !strings.Contains(page, ok) {
			t.Errorf("the trend page lacks the link %s", ok)
		}
	}
}

// A run links to the page its report was written as, named like its
// Result (<test>@<package>.N.html), and a PERFGATE_REPORT_URL that is not
// an http(s) URL is an error, not a link.
func TestReportURL(t *testing.T) {
	t.Setenv(resultpkg.EnvReport, "/ci/report")
	r := &resultpkg.Result{Name: "TestBudget", Path: "/ci/results/TestBudget@pkg.sess.2.json"}
	t.Setenv(EnvReportURL, "https://ci.example/run/7/")
	if u, err := ReportURL(r); err != nil || u != "https://ci.example/run/7/TestBudget@pkg.sess.2.html" {
		t.Errorf("ReportURL = %q, %v", u, err)
	}
	r.ReportFile = "/ci/report/TestBudget@pkg.sess.3.html"
	if u, _ := ReportURL(r); u != "https://ci.example/run/7/TestBudget@pkg.sess.3.html" {
		t.Errorf("ReportURL with the page written = %q", u)
	}
	t.Setenv(EnvReportURL, "javascript:alert(1)//")
	if u, err := ReportURL(r); err == nil || u != "" || !strings.Contains(err.Error(), "PERFGATE_REPORT_URL=") {
		t.Errorf("javascript: base: %q, %v", u, err)
	}
}

// A relative PERFGATE_REPORT is the folder at the module root the
// reports were written to (report.ReportFromEnv), and the run links there,
// not to a folder below the package go test ran in.
func TestReportURLFromModuleRoot(t *testing.T) {
	mod := testenv.InModulePackage(t)
	t.Setenv(resultpkg.EnvReport, "try/rep")
	t.Setenv(EnvReportURL, "")
	r := &resultpkg.Result{Name: "TestBudget", Path: "/ci/results/TestBudget@pkg.json"}
	if u, err := ReportURL(r); err != nil || u != "file://"+filepath.Join(mod, "try", "rep", "TestBudget@pkg.html") {
		t.Errorf("ReportURL = %q, %v; want the page under %s", u, err, filepath.Join(mod, "try", "rep"))
	}
}

// A history that may only be read is read: its runs come back, where
// opening it to migrate failed with "attempt to write a readonly
// database". One that is not there is an error, and is not created.
func TestOpenExistingReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	r := result("TestFeed", "Pixel 7", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), scrollStep("scroll", 18, 10))
	if _, err := s.Add(context.Background(), RunOf(r, Meta{Branch: "main"})); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := OpenExisting(context.Background(), "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatalf("read-only history: %v", err)
	}
	defer ro.Close()
	if n, err := ro.Count(context.Background()); err != nil || n != 1 {
		t.Errorf("read-only history: %d runs, %v", n, err)
	}
	missing := filepath.Join(t.TempDir(), "nope", "h.db")
	if _, err := OpenExisting(context.Background(), missing); err == nil {
		t.Errorf("a history that is not there opened")
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("OpenExisting created %s", filepath.Dir(missing))
	}
}

// A DSN's password never reaches a message, in the URL's user part or in
// its query string (libpq takes both), or as a key=value pair.
func TestRedact(t *testing.T) {
	for dsn, want := range map[string]string{
		"postgres://perf:s3cret@db.example/perf":                          "postgres://perf:xxxxx@db.example/perf",
		"postgres://perf@db.example/perf?password=s3cret&sslmode=require": "postgres://perf@db.example/perf?password=xxxxx&sslmode=require",
		"host=db dbname=perf password='s3 cret' user=perf":                "host=db dbname=perf password=xxxxx user=perf",
	} {
		if got := redact(dsn); got != want || strings.Contains(got, "s3cret") {
			t.Errorf("redact(%q) = %q, want %q", dsn, got, want)
		}
	}
}
