package metrics

import (
	"fmt"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// ParseError reports malformed device output. It names the source (the
// command or file the text came from), the 1-based line and quotes the line,
// at most a bounded excerpt of it (a 5 MB row is not a 5 MB message).
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
	return fmt.Sprintf("%s: line %d: %s: %s", e.Source, e.Line, e.Reason, excerpt.Quote(e.Text))
}
