package metrics

import "fmt"

// ParseError reports malformed device output. It names the source (the
// command or file the text came from), the 1-based line and quotes the line.
type ParseError struct {
	Source string // e.g. "dumpsys gfxinfo framestats", "/proc/stat"
	Line   int    // 1-based; 0 when the error is about the whole text
	Text   string // the offending line, as read
	Reason string // what is wrong with it
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Source, e.Reason)
	}
	return fmt.Sprintf("%s: line %d: %s: %q", e.Source, e.Line, e.Reason, e.Text)
}
