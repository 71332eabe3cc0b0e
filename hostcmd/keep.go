package hostcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/perfgate/perfgate/internal/atomicfile"
)

// keeper keeps a command's output within a bound: its first half and its
// last half, and how many bytes between them were left out.
type keeper struct {
	mu      sync.Mutex
	max     int
	head    []byte
	tail    []byte // a ring of at most max-max/2 bytes once head is full
	start   int    // where the ring's oldest byte is
	dropped int64
}

func newKeeper(max int) *keeper { return &keeper{max: max} }

func (k *keeper) Write(p []byte) (int, error) {
	if k.max <= 0 {
		return len(p), nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(p)
	if room := k.max/2 - len(k.head); room > 0 {
		take := min(room, len(p))
		k.head = append(k.head, p[:take]...)
		p = p[take:]
	}
	tailMax := k.max - k.max/2
	for len(p) > 0 {
		if len(k.tail) < tailMax {
			take := min(tailMax-len(k.tail), len(p))
			k.tail = append(k.tail, p[:take]...)
			p = p[take:]
			continue
		}
		// The ring is full: the new byte replaces the oldest.
		take := min(tailMax-k.start, len(p))
		copy(k.tail[k.start:], p[:take])
		k.start = (k.start + take) % tailMax
		k.dropped += int64(take)
		p = p[take:]
	}
	return n, nil
}

// Bytes is what was kept: the head, a line saying how many bytes were
// left out when some were, and the tail.
func (k *keeper) Bytes() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := append([]byte(nil), k.head...)
	if k.dropped > 0 {
		out = fmt.Appendf(out, "\n[… %d bytes left out …]\n", k.dropped)
	}
	out = append(out, k.tail[k.start:]...)
	return append(out, k.tail[:k.start]...)
}

// write writes what was kept to path, its folder made.
func (k *keeper) write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, k.Bytes())
}
