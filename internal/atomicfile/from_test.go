package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/atomicfile"
)

func TestWriteFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "out.md")
	if err := atomicfile.WriteFrom(path, func(w io.Writer) error { _, err := io.WriteString(w, "# hi\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "# hi\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
	boom := errors.New("boom")
	if err := atomicfile.WriteFrom(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Errorf("write's error: got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "# hi\n" {
		t.Errorf("a failed write changed the file: %q", b)
	}
}
