package adbx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxOutput bounds what one Shell or Batch call reads when
// Options.MaxOutput is 0: 64 MiB. The largest outputs perfgate reads are
// far smaller: `dumpsys gfxinfo <pkg> framestats` some 40 KB a window
// (every process's, 0.4 MB: the anavmode capture), `dumpsys meminfo -a
// <pkg>` some 30 KB (every process's a few MB), `logcat -d` of the main
// and system buffers at the largest size Developer options offer (16 MB
// each) some 35 MB, an ART sampling trace its 8 MB buffer, `perfetto
// --query` under 100 KB. `simpleperf report-sample --show-callchain`
// prints 1–6 KB a sample (200 MB or more for a minute of a main thread
// busy throughout at 1000 Hz), so perfgate reads it with Stream, sample by
// sample. A command printing 4 GB costs a call
// the 64 MiB it holds when stopped (some 70 MB of a process), within the
// 200 MB a session may take.
const DefaultMaxOutput = 64 << 20

// ErrOutputTooLarge is matched (errors.Is) by an *OutputError.
var ErrOutputTooLarge = errors.New("output too large")

// OutputError is a command that printed more than the call may read
// (Options.MaxOutput). The command was stopped (its connection closed, as
// adbd then kills it) and its output dropped; in a batch, the Results of
// the commands before it are returned with the error.
type OutputError struct {
	Cmd   string // the command that was printing when the bound was passed
	Limit int64  // the bound, in bytes of stdout and stderr together
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("%s printed more than %d bytes (%s, adbx Options.MaxOutput), more than any real command prints: stopped, its output dropped",
		quoteCmd(e.Cmd), e.Limit, sizeName(e.Limit))
}

// Is lets errors.Is(err, ErrOutputTooLarge) match.
func (e *OutputError) Is(target error) bool { return target == ErrOutputTooLarge }

// sizeName is n bytes in the largest binary unit that divides it.
func sizeName(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return fmt.Sprintf("%d %s", n/u.bytes, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// errOutputLimit is what a capped writer returns once its call's bound is
// passed; the call turns it into an *OutputError naming the command.
var errOutputLimit = errors.New("output bound passed")

// outputBudget is what one call may still read, shared by the writers of
// its stdout and stderr.
type outputBudget struct {
	left int64
}

// outputBlock is the largest block a cappedBuffer collects output in.
const outputBlock = 1 << 20

// cappedBuffer collects output within a budget, in blocks (4 KiB, doubling
// up to 1 MiB), joined only when the whole output is asked for: a call
// that passes its bound has held the bound, not the bound and the copies
// a doubling buffer leaves behind, and drops it without a copy.
type cappedBuffer struct {
	blocks [][]byte
	n      int
	budget *outputBudget
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if int64(len(p)) > c.budget.left {
		return 0, errOutputLimit
	}
	c.budget.left -= int64(len(p))
	c.n += len(p)
	written := len(p)
	for len(p) > 0 {
		k := len(c.blocks)
		if k == 0 || len(c.blocks[k-1]) == cap(c.blocks[k-1]) {
			size := 4096
			if k > 0 {
				size = min(2*cap(c.blocks[k-1]), outputBlock)
			}
			c.blocks = append(c.blocks, make([]byte, 0, size))
			k++
		}
		b := c.blocks[k-1]
		m := min(len(p), cap(b)-len(b))
		c.blocks[k-1] = append(b, p[:m]...)
		p = p[m:]
	}
	return written, nil
}

// Bytes is all that was written, in one slice.
func (c *cappedBuffer) Bytes() []byte { return c.head(c.n) }

// head is the first n bytes written, in one slice.
func (c *cappedBuffer) head(n int) []byte {
	if len(c.blocks) == 0 || n <= len(c.blocks[0]) {
		if len(c.blocks) == 0 {
			return nil
		}
		return c.blocks[0][:n]
	}
	out := make([]byte, 0, n)
	for _, b := range c.blocks {
		out = append(out, b[:min(len(b), n-len(out))]...)
		if len(out) == n {
			break
		}
	}
	if n == c.n {
		c.blocks = [][]byte{out}
	}
	return out
}

// through is the output up to the end of the line (or of the 64 bytes
// after it) holding the last match of pat: of a batch cut short, the
// commands that finished, without joining the rest.
func (c *cappedBuffer) through(pat []byte) []byte {
	last, off := -1, 0
	var carry []byte
	for _, b := range c.blocks {
		// The pattern may span two blocks: the end of the one before
		// is searched with this one's start.
		joined := append(carry, b[:min(len(b), len(pat))]...)
		if i := bytes.LastIndex(joined, pat); i >= 0 {
			last = off - len(carry) + i
		}
		if i := bytes.LastIndex(b, pat); i >= 0 {
			last = off + i
		}
		carry = append(carry[:0], b[max(len(b)-len(pat)+1, 0):]...)
		off += len(b)
	}
	if last < 0 {
		return c.head(min(c.n, 128)) // the marker line, at most
	}
	return c.head(min(c.n, last+len(pat)+64))
}

// readCapped reads r to its end into a buffer within budget.
func readCapped(r io.Reader, budget *outputBudget) (*cappedBuffer, error) {
	w := &cappedBuffer{budget: budget}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return w, werr
			}
		}
		if err == io.EOF {
			return w, nil
		}
		if err != nil {
			return w, err
		}
	}
}
