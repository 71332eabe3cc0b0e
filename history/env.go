package history

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/envpath"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/filename"
	resultpkg "github.com/perfgate/perfgate/result"
)

// Variables that describe a run's build, read by MetaFromEnv.
const (
	// EnvCommit and EnvBranch name the commit and branch measured; in
	// GitHub Actions GITHUB_SHA and GITHUB_HEAD_REF or GITHUB_REF_NAME
	// stand in, elsewhere the git checkout of the working directory.
	EnvCommit = "PERFGATE_COMMIT"
	EnvBranch = "PERFGATE_BRANCH"
	// EnvAppVersion is the app's version as the build names it.
	EnvAppVersion = "PERFGATE_APP_VERSION"
	// EnvReportURL is where the sessions' reports (PERFGATE_REPORT) will be
	// found, e.g. a CI artifact's URL; a run links to
	// $PERFGATE_REPORT_URL/<test>.html. Without it a run links to the
	// report file itself.
	EnvReportURL = "PERFGATE_REPORT_URL"
)

// MetaFromEnv describes the build being measured from the environment:
// PERFGATE_COMMIT, else GITHUB_SHA, else `git rev-parse HEAD` in dir;
// PERFGATE_BRANCH, else GITHUB_HEAD_REF (a pull request's branch), else
// GITHUB_REF_NAME, else the checked-out branch; PERFGATE_APP_VERSION.
func MetaFromEnv(dir string) Meta {
	m := Meta{
		Commit:     firstEnv(EnvCommit, "GITHUB_SHA"),
		Branch:     firstEnv(EnvBranch, "GITHUB_HEAD_REF", "GITHUB_REF_NAME"),
		AppVersion: os.Getenv(EnvAppVersion),
	}
	if m.Commit == "" {
		m.Commit = git(dir, "rev-parse", "HEAD")
	}
	if m.Branch == "" {
		if b := git(dir, "rev-parse", "--abbrev-ref", "HEAD"); b != "HEAD" {
			m.Branch = b
		}
	}
	return m
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// git runs a read-only git command in dir and returns its output, or ""
// outside a checkout or without git.
func git(dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ReportURL is the link of a session's report written under
// PERFGATE_REPORT: $PERFGATE_REPORT_URL/<page>, else the file's absolute
// path; "" when no report is written. The page is the one the report
// wrote (ReportPage). A PERFGATE_REPORT_URL that is not an http(s) URL is
// an error: a trend page would make it a link.
func ReportURL(r *resultpkg.Result) (string, error) {
	dir := envpath.Dir(resultpkg.EnvReport) // where report.ReportFromEnv wrote it
	if dir == "" || r.Name == "" {
		return "", nil
	}
	file := ReportPage(r)
	if base := os.Getenv(EnvReportURL); base != "" {
		if !SafeURL(base) || !strings.Contains(base, "://") {
			return "", fmt.Errorf("%s=%s: want an http(s) URL", EnvReportURL, excerpt.Quote(base))
		}
		return strings.TrimSuffix(base, "/") + "/" + file, nil
	}
	if !filepath.IsAbs(dir) {
		return "", nil // no working directory to take it from
	}
	return "file://" + strings.TrimSuffix(dir, "/") + "/" + file, nil
}

// ReportPage is the file name of r's HTML report: the page the report
// wrote when it did (result.Result.ReportFile), else the one it writes
// beside a Result of r's file name (<test>@<package>.html, numbered as
// the Result is), else the test's name made a file name (filename.Of).
func ReportPage(r *resultpkg.Result) string {
	switch {
	case r.ReportFile != "":
		return filepath.Base(r.ReportFile)
	case r.Path != "":
		return strings.TrimSuffix(filepath.Base(r.Path), ".json") + ".html"
	}
	return cmp.Or(filename.Of(r.Name), "session") + ".html"
}

// SafeURL reports whether u may be a link on a page: an http or https
// URL, a file URL (a report on this machine), or a relative reference;
// never a javascript:, data: or other scheme a click would run.
func SafeURL(u string) bool {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return false
	}
	switch strings.ToLower(p.Scheme) {
	case "", "http", "https", "file":
		return p.Scheme != "" || p.Opaque == ""
	}
	return false
}

// AddFromEnv adds r to the history $PERFGATE_HISTORY names (EnvDSN: a
// relative file from the module root), described by
// MetaFromEnv; it does nothing when the variable is unset. A session calls
// it after writing its Result.
func AddFromEnv(ctx context.Context, r *resultpkg.Result) error {
	dsn := EnvDSN()
	if dsn == "" {
		return nil
	}
	s, err := Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	m := MetaFromEnv(".")
	if m.ReportURL, err = ReportURL(r); err != nil {
		return err
	}
	_, err = s.Add(ctx, RunOf(r, m))
	return err
}

// Reporter adds a session's Result to $PERFGATE_HISTORY when that is set
// (AddFromEnv, within 2 minutes). Give it to the sessions that should join
// the history: perftest.WithReporters(history.Reporter), or for every
// session of a test package perftest.UseReporters(history.Reporter) in
// TestMain.
var Reporter = resultpkg.Reporter{Name: "history", Env: resultpkg.EnvHistory, Write: func(r *resultpkg.Result) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := AddFromEnv(ctx, r); err != nil {
		return fmt.Errorf("%s=%s: %w", resultpkg.EnvHistory, redact(os.Getenv(resultpkg.EnvHistory)), err)
	}
	return nil
}}
