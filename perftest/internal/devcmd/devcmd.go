// Package devcmd is what a session's sources share of the shell commands
// they run on the phone: the batch they run them in, and how a failed
// command reads in a note.
//
//	out, err := batch(ctx, []string{"getprop " + adbx.Quote(prop)})
//	if err == nil && out[0].ExitCode != 0 {
//		note("blocks: %s", devcmd.Failure(out[0], "getprop "+prop))
//	}
package devcmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// Batch runs cmds in ONE round trip and returns each one's result.
type Batch func(ctx context.Context, cmds []string) ([]adbx.Result, error)

// Stream hands a command's output over as it is printed (adb's shell
// service), for outputs too large to hold whole. A command that fails
// reads as an error from the reader (*adbx.ExitError with its stderr).
type Stream func(ctx context.Context, cmd string) (io.ReadCloser, error)

// Failure describes a failed command for notes and gaps: the command, its
// exit status and the start of its stderr (else stdout), in adbx's words.
func Failure(r adbx.Result, cmd string) string {
	if err := r.Err(cmd); err != nil {
		return err.Error()
	}
	out := strings.TrimSpace(string(r.Stdout))
	if out == "" {
		return cmd + ": exit status 0, printed nothing"
	}
	return fmt.Sprintf("%s: exit status 0: %q", cmd, Clip(out))
}

// Clip shortens device text quoted in a note, at excerpt's limit.
func Clip(s string) string {
	const max = excerpt.Max
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// Note records a note of the Result (once: the same note again adds
// nothing). A source's caller says when it may be called: under the
// session's lock, or at setup.
type Note func(format string, args ...any)

// Output is what a command of a batch printed; stderr follows stdout so
// error messages reach the parsers' quotes on devices that split the
// streams.
func Output(r adbx.Result) []byte {
	if len(r.Stderr) == 0 {
		return r.Stdout
	}
	return append(append(append([]byte(nil), r.Stdout...), '\n'), r.Stderr...)
}

// Where sessions leave files on the phone, and when one is a leftover.
const (
	// TmpDir is where sessions make files (traces, recordings, leases):
	// the shell user may make and touch files there on every Android
	// version.
	TmpDir = "/data/local/tmp"
	// LeftoverGrace is how long a file nobody touched may still be a live
	// session's: ten times the minute a trace's lease is renewed in, so
	// that a host busy for a while does not lose its files to another
	// session.
	LeftoverGrace = 10 * time.Minute
)
