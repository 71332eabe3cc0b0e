package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	for _, text := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != text {
			t.Errorf("read %q, want %q", b, text)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want only a.json", len(ents))
	}
	if err := Write(filepath.Join(dir, "no", "such", "dir.json"), []byte("x")); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}
