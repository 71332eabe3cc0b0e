package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
)

// Variables that describe a run's build, read by MetaFromEnv.
const (
	// EnvHistory is where every session of a test binary that links this
	// package adds its Result: an SQLite file or a PostgreSQL DSN.
	EnvHistory = perftest.EnvHistory
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
// PERFGATE_REPORT: $PERFGATE_REPORT_URL/<name>.html, else the file's
// absolute path; "" when no report is written.
func ReportURL(r *perftest.Result) string {
	dir := os.Getenv(perftest.EnvReport)
	if dir == "" || r.Name == "" {
		return ""
	}
	file := report.FileName(r.Name) + ".html"
	if base := os.Getenv(EnvReportURL); base != "" {
		return strings.TrimSuffix(base, "/") + "/" + file
	}
	abs, err := os.Getwd()
	if err != nil {
		return ""
	}
	if !strings.HasPrefix(dir, "/") {
		dir = abs + "/" + dir
	}
	return "file://" + strings.TrimSuffix(dir, "/") + "/" + file
}

// AddFromEnv adds r to the history $PERFGATE_HISTORY names, described by
// MetaFromEnv; it does nothing when the variable is unset. A session calls
// it after writing its Result.
func AddFromEnv(ctx context.Context, r *perftest.Result) error {
	dsn := os.Getenv(EnvHistory)
	if dsn == "" {
		return nil
	}
	s, err := Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	m := MetaFromEnv(".")
	m.ReportURL = ReportURL(r)
	_, err = s.Add(ctx, RunOf(r, m))
	return err
}

// Every session of a test binary that links this package adds its Result
// to $PERFGATE_HISTORY when that is set.
func init() {
	perftest.RegisterReporterFor(perftest.EnvHistory, "history", func(r *perftest.Result) error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := AddFromEnv(ctx, r); err != nil {
			return fmt.Errorf("%s=%s: %w", EnvHistory, redact(os.Getenv(EnvHistory)), err)
		}
		return nil
	})
}
