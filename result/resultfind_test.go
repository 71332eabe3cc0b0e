package result

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A folder stands for its Results and its subfolders', in name order; its
// other JSON and hidden files are passed over, and a folder without a
// Result is an error naming it.
func TestResultFiles(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b.json", "shard1/a.json", ".tmp/c.json"} {
		r := &Result{Name: "feed"}
		if err := r.WriteFile(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "budget.json"), []byte(`{"schema": "perfgate.budget/v1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	files, err := ResultFiles([]string{dir}, func(p string, r *Result) error {
		seen = append(seen, p)
		return nil
	})
	want := []string{filepath.Join(dir, "b.json"), filepath.Join(dir, "shard1", "a.json")}
	if err != nil || !slices.Equal(files, want) || !slices.Equal(seen, want) {
		t.Errorf("got %q, %q, %v; want %q", files, seen, err, want)
	}
	if _, err := ReadResults([]string{filepath.Join(dir, "budget.json")}); err == nil {
		t.Error("a budget file named itself was read as a Result")
	}
	empty := t.TempDir()
	if _, err := ReadResults([]string{empty}); err == nil || !strings.HasPrefix(err.Error(), empty+": no *.json") {
		t.Errorf("empty folder: %v", err)
	}
}
