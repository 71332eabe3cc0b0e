package dumpsys

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
)

// genReader reads head, then body repeated up to size bytes in all,
// without holding them: a capture of any size for a test or benchmark.
// It counts what it gave and, like a file, tells its size.
type genReader struct {
	head, body []byte
	size, off  int64
}

func (g *genReader) Size() int64 { return g.size }

func (g *genReader) Read(p []byte) (int, error) {
	if g.off >= g.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && g.off < g.size {
		var src []byte
		if h := int64(len(g.head)); g.off < h {
			src = g.head[g.off:]
		} else {
			k := (g.off - h) % int64(len(g.body))
			src = g.body[k:]
		}
		m := copy(p[n:], src[:min(int64(len(src)), g.size-g.off)])
		n += m
		g.off += int64(m)
	}
	return n, nil
}

// allocated is what fn allocates, in bytes.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// ReadText stops at its limit, having held no more than it, whatever the
// length of the text: a GiB of ordinary lines is refused at 16 MiB.
func TestReadTextLimit(t *testing.T) {
	g := &genReader{body: []byte("  unrelated line of ordinary device text 12345 67890\n"), size: 1 << 30}
	var err error
	alloc := allocated(func() { _, err = devtext.ReadText(g, MeminfoSource, 16<<20) })
	if !errors.Is(err, devtext.ErrTextTooLong) || !strings.HasPrefix(err.Error(), "dumpsys meminfo: more than 16777216 bytes") {
		t.Errorf("err %v", err)
	}
	if g.off > 20<<20 || alloc > 48<<20 {
		t.Errorf("read %d MiB, allocated %d MiB of a 1 GiB text with a 16 MiB limit", g.off>>20, alloc>>20)
	}
	if b, err := devtext.ReadText(strings.NewReader("a\nb"), "x", 3); err != nil || string(b) != "a\nb" {
		t.Errorf("a text of the limit: %q, %v", b, err)
	}
}
