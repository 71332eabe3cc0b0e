package devtext

import (
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// ParseError reports malformed device output. It names the source (the
// command or file the text came from), the 1-based line and quotes the line,
// at most a bounded excerpt of it (a 5 MB row is not a 5 MB message).
type ParseError struct {
	Source string // e.g. "dumpsys gfxinfo framestats", "/proc/stat"
	Line   int    // 1-based; 0 when the error is about the whole text
	Text   string // the offending line, as read; only its start for ErrLineTooLong
	Reason string // what is wrong with it
	// Err is what callers may branch on (errors.Is), when the reason is one
	// of this package's sentinels: ErrLineTooLong, ErrTextTooLong.
	Err error
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Source, e.Reason)
	}
	quote := excerpt.Quote(e.Text)
	if errors.Is(e.Err, ErrLineTooLong) {
		quote = excerpt.Start([]byte(e.Text)) // the line was never read whole
	}
	return fmt.Sprintf("%s: line %d: %s: %s", e.Source, e.Line, e.Reason, quote)
}

// Unwrap returns Err.
func (e *ParseError) Unwrap() error { return e.Err }
