// Package analyze is what `perfgate analyze` prints: a capture of any
// format perfgate reads, detected and summarised.
//
// Each reader takes a capture saved from a device (gfxinfo framestats or
// SurfaceFlinger --latency frames, dumpsys meminfo, /proc/stat samples, a
// Perfetto trace) and returns a value the command prints as JSON or text:
//
//	f, err := os.Open("sf.txt")
//	...
//	out, err := analyze.ReadFrames(f, "sf.txt", analyze.FramesOptions{})
//	...
//	out.WriteJSON(os.Stdout)
package analyze

import (
	"encoding/json"
	"io"
)

// writeIndented writes v as indented JSON; escapeHTML says whether <, >
// and & are escaped, as encoding/json does by default.
func writeIndented(w io.Writer, v any, escapeHTML bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(escapeHTML)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
