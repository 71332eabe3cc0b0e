package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/perftest"
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
	t.Setenv(perftest.EnvReport, "/ci/report")
	r := &perftest.Result{Name: "TestBudget", Path: "/ci/results/TestBudget@pkg.sess.2.json"}
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
