package gfxinfo

import (
	"bytes"

	"github.com/perfgate/perfgate/android/devtext"
)

// IsDump reports whether head, the start of a capture as stored (UTF-16
// or CRLF too), is gfxinfo output: it holds the dump's banner or a
// PROFILEDATA marker.
func IsDump(head []byte) bool {
	text := devtext.NormalizeHead(head)
	return bytes.Contains(text, gfxMarker) || bytes.Contains(text, []byte("Graphics info for pid")) ||
		bytes.Contains(text, []byte("Applications Graphics Acceleration Info"))
}
