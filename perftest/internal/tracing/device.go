package tracing

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// failure describes a failed command for notes: the command, its exit
// status and the start of its stderr (else stdout), in adbx's words.
func failure(r adbx.Result, cmd string) string {
	if err := r.Err(cmd); err != nil {
		return err.Error()
	}
	out := strings.TrimSpace(string(r.Stdout))
	if out == "" {
		return cmd + ": exit status 0, printed nothing"
	}
	return fmt.Sprintf("%s: exit status 0: %q", cmd, clipText(out))
}

// clipText shortens device text quoted in a note, at excerpt's limit.
func clipText(s string) string {
	const max = excerpt.Max
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// quote quotes s for the device's POSIX shell.
func quote(s string) string { return adbx.Quote(s) }
