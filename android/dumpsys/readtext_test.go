package dumpsys

import (
	"errors"
	"github.com/perfgate/perfgate/internal/capturegen"
	"github.com/perfgate/perfgate/internal/memwatch"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
)

// ReadText stops at its limit, having held no more than it, whatever the
// length of the text: a GiB of ordinary lines is refused at 16 MiB.
func TestReadTextLimit(t *testing.T) {
	g := &capturegen.Repeat{Body: []byte("  unrelated line of ordinary device text 12345 67890\n"), Len: 1 << 30}
	var err error
	alloc := memwatch.Allocated(func() { _, err = devtext.ReadText(g, MeminfoSource, 16<<20) })
	if !errors.Is(err, devtext.ErrTextTooLong) || !strings.HasPrefix(err.Error(), "dumpsys meminfo: more than 16777216 bytes") {
		t.Errorf("err %v", err)
	}
	if g.Given() > 20<<20 || alloc > 48<<20 {
		t.Errorf("read %d MiB, allocated %d MiB of a 1 GiB text with a 16 MiB limit", g.Given()>>20, alloc>>20)
	}
	if b, err := devtext.ReadText(strings.NewReader("a\nb"), "x", 3); err != nil || string(b) != "a\nb" {
		t.Errorf("a text of the limit: %q, %v", b, err)
	}
}
