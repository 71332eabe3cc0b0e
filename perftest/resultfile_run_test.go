package perftest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/result"
)

// resultJSON is a Result as WriteInDir writes it, naming its folded
// stacks and trace when given.
func resultJSON(t *testing.T, name, stacks, trace string) string {
	t.Helper()
	r := &result.Result{Schema: result.Schema, Name: name}
	if stacks != "" {
		r.Causes = &result.CauseRun{StacksFile: stacks}
	}
	if trace != "" {
		r.Trace = &result.TraceInfo{File: trace}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// advisoryLocks reports whether this system has the locks that tell a
// running process's files (filelock.Hold).
func advisoryLocks(t *testing.T) bool {
	t.Helper()
	p := writeFile(t, t.TempDir(), "probe", "")
	release, err := filelock.Hold(p)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return filelock.Held(p)
}

// skipWithoutLocks skips a test of runs going on at once where nothing
// tells a running process's files from an ended one's.
func skipWithoutLocks(t *testing.T) {
	t.Helper()
	if !advisoryLocks(t) {
		t.Skip("no advisory locks: a run going on is not told from an ended one")
	}
}

// writeFile writes s into dir/name and returns the path.
func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
