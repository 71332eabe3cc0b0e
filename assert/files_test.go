package assert_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/filelock"
)

// Only a bare name goes under testdata/: "./x.json", "sub/x.json" and
// absolute paths are taken as given, for reading and for rewriting.
func TestBudgetPathAsGiven(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, dir, "here.budget.json", goodFile)
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub"), "there.budget.json", goodFile)
	for _, p := range []string{"./here.budget.json", "sub/there.budget.json", filepath.Join(dir, "here.budget.json")} {
		if f, err := budget.ReadBudgetFile(p); err != nil || f.Path != p {
			t.Errorf("ReadBudgetFile(%q): %v", p, err)
		}
	}
	if _, err := budget.ReadBudgetFile("here.budget.json"); err == nil || !strings.Contains(err.Error(), filepath.Join("testdata", "here.budget.json")) {
		t.Errorf("a bare name is not read from testdata/: %v", err)
	}
	t.Setenv(budget.EnvUpdate, "1")
	if f := (&fakeT{}); !assert.Budget(f, run("Pixel 7", "14", scrollStep()), "./new.budget.json") {
		t.Fatal(f.errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.budget.json")); err != nil {
		t.Errorf("./new.budget.json was not written where named: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "testdata")); err == nil {
		t.Error("a testdata/ folder appeared")
	}
}

// An update waits for the lock a bounded time, then fails naming the lock
// and who holds it, and changes nothing.
func TestBudgetUpdateLockTimeout(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "x.budget.json", goodFile)
	lock := filepath.Join(dir, ".x.budget.json.lock")
	unlock, err := filelock.Lock(lock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	t.Setenv(filelock.EnvTimeout, "50ms")
	err = budget.UpdateBudgetFile(p, func(f *budget.File) error {
		t.Error("updated without the lock")
		return nil
	})
	want := fmt.Sprintf("perf budget file %s: lock %s: lock still held by pid %d on ", p, lock, os.Getpid())
	if !errors.Is(err, filelock.ErrTimeout) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got  %v\nwant %s…", err, want)
	}
	if b, _ := os.ReadFile(p); string(b) != goodFile {
		t.Errorf("the file changed:\n%s", b)
	}
	t.Setenv(filelock.EnvTimeout, "forever")
	if err := budget.UpdateBudgetFile(p, func(*budget.File) error { return nil }); err == nil || !strings.Contains(err.Error(), `PERFGATE_LOCK_TIMEOUT="forever"`) {
		t.Errorf("a bad timeout: %v", err)
	}
}

// The lock lives beside the budget file, not under a name anyone can
// predict in the shared temporary folder, and is gone after the update; a
// symbolic link planted in its place is refused and not followed.
func TestBudgetUpdateLockFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	p := filepath.Join(dir, "x.budget.json")
	if err := budget.UpdateBudgetFile(p, func(*budget.File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("the update left %s in the temporary folder", ents[0].Name())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the folder holds %d files, want only the budget file", len(ents))
	}

	victim := writeFile(t, t.TempDir(), "victim", "keep me")
	if err := os.Symlink(victim, filepath.Join(dir, ".x.budget.json.lock")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	err := budget.UpdateBudgetFile(p, func(*budget.File) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v, want the planted link refused", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the link's target now holds %q", b)
	}
}
