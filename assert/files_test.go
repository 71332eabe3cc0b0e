package assert_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/internal/filelock"
)

// A key given twice, at any level, is an error naming the file, both lines
// and the key: a merge leftover must not loosen jank ≤ 3 to ≤ 300.
func TestBudgetFileDuplicateKeys(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"metric", strings.Replace(goodFile, `"fps": { "min": 50, "unit": "fps" }`, `"fps": { "min": 50, "unit": "fps" },
      "jank": { "max": 300, "unit": "frames" }`, 1),
			`b.json:7: duplicate key "jank" in object "steps"."scroll" (lines 5 and 7); keep one`},
		{"step", strings.Replace(goodFile, `"tap": {`, `"scroll": {`, 1),
			`b.json:8: duplicate key "scroll" in object "steps" (lines 4 and 8); keep one`},
		{"field of an entry", strings.Replace(goodFile, `"max": 3, "unit": "frames"`, `"max": 3, "unit": "frames", "max": 300`, 1),
			`b.json:5: duplicate key "max" in object "steps"."scroll"."jank" (lines 5 and 5); keep one`},
		{"top level", strings.Replace(goodFile, `"schema": "perfgate.budget/v1",`, `"schema": "perfgate.budget/v1", "steps": {},`, 1),
			`b.json:3: duplicate key "steps" in the top level (lines 2 and 3); keep one`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "b.json", tc.text)
			_, err := assert.ReadBudgetFile(p)
			if want := filepath.Join(dir, tc.want); err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

// A parse error quotes a bounded excerpt of the offending text, however
// long its line is.
func TestBudgetFileLongLines(t *testing.T) {
	huge := strings.Repeat("x", 256<<10)
	cases := []struct{ name, text, want string }{
		{"unknown field of an entry", strings.Replace(goodFile, `"unit": "frames"`, `"`+huge+`": 1`, 1), `b.json:5: step "scroll", metric "jank": bad entry { "max": 3, "xxx`},
		{"both limits", strings.Replace(goodFile, `"min": 50, "unit": "fps"`, `"min": 50, "max": 70, "unit": "`+huge+`"`, 1), `b.json:6: step "scroll", metric "fps": both max and min in { "min": 50, "max": 70, "unit": "xxx`},
		{"unknown metric", strings.Replace(goodFile, `"jank"`, `"`+huge+`"`, 1), `b.json:5: step "scroll", metric "xxx`},
		{"step", strings.Replace(goodFile, `"tap": {`, `"`+huge+`": [`, 1), `b.json:8: step "xxx`},
		{"schema", strings.Replace(goodFile, "perfgate.budget/v1", huge, 1), `b.json:2: schema "xxx`},
		{"top-level field", strings.Replace(goodFile, `"schema"`, `"`+huge+`"`, 1), `b.json:2: unknown field "xxx`},
		{"duplicate", strings.Replace(goodFile, `"tap": {`, `"`+huge+`": {}, "`+huge+`": {`, 1), `b.json:8: duplicate key "xxx`},
		{"found", strings.Replace(goodFile, `"steps": {`, `"steps": "`+huge+`", "x": {`, 1), `b.json:3: "steps": want "{", found "xxx`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "b.json", tc.text)
			_, err := assert.ReadBudgetFile(p)
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, filepath.Join(dir, tc.want)) || len(msg) > 1000 || !strings.Contains(msg, "bytes)") {
				t.Errorf("%d-byte message: %.400s", len(msg), msg)
			}
		})
	}
}

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
		if f, err := assert.ReadBudgetFile(p); err != nil || f.Path != p {
			t.Errorf("ReadBudgetFile(%q): %v", p, err)
		}
	}
	if _, err := assert.ReadBudgetFile("here.budget.json"); err == nil || !strings.Contains(err.Error(), filepath.Join("testdata", "here.budget.json")) {
		t.Errorf("a bare name is not read from testdata/: %v", err)
	}
	t.Setenv(assert.EnvUpdate, "1")
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
	err = assert.UpdateBudgetFile(p, func(f *assert.File) error {
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
	if err := assert.UpdateBudgetFile(p, func(*assert.File) error { return nil }); err == nil || !strings.Contains(err.Error(), `PERFGATE_LOCK_TIMEOUT="forever"`) {
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
	if err := assert.UpdateBudgetFile(p, func(*assert.File) error { return nil }); err != nil {
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
	err := assert.UpdateBudgetFile(p, func(*assert.File) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v, want the planted link refused", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the link's target now holds %q", b)
	}
}
