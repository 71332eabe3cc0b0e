package surfaceflinger

import (
	"bytes"

	"github.com/perfgate/perfgate/android/devtext"
)

// IsLatency reports whether head, the start of a capture as stored
// (UTF-16 or CRLF too), looks like --latency output: its first line that
// is not blank is a lone integer, the refresh period.
func IsLatency(head []byte) bool {
	text := devtext.NormalizeHead(head)
	for len(text) > 0 {
		ln := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			ln, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if first := bytes.TrimSpace(ln); len(first) > 0 {
			return len(bytes.Trim(first, "0123456789")) == 0
		}
	}
	return false
}
