package adbx

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// A batch runs N commands in one shell session and splits the session's
// output back into one Result per command. Its separators carry a marker
// that the script makes up on the device when it starts and that appears
// nowhere in the command line, so no command's output can forge one: a
// command cannot know the marker without reading the shell's memory, and
// each command runs in a subshell that first unsets it.
//
// The script, for commands c0…cN-1 (shown for shell v2; without v2 the
// stderr lines are left out and each command's stderr joins its stdout):
//
//	m=$(cat /proc/sys/kernel/random/uuid 2>/dev/null)
//	[ -n "$m" ] || m=$( (od -An -tx1 -N16 /dev/urandom | tr -dc 0-9a-f) 2>/dev/null)
//	[ -n "$m" ] || m=r$$x$RANDOM$RANDOM$RANDOM$(date +%s 2>/dev/null)
//	echo "$m"; echo "$m" >&2
//	(unset m; eval 'c0') </dev/null
//	printf '\n%s %d %d\n' "$m" 0 $?; printf '\n%s %d\n' "$m" 0 >&2
//	…
//
// So stdout is "<marker>\n" then, per command i, its output followed by
// "\n<marker> i <exit>\n"; stderr is "<marker>\n" then each command's
// stderr followed by "\n<marker> i\n". The newline in front of each marker
// belongs to the separator, so output without a trailing newline comes back
// byte for byte. Commands read /dev/null, so none can swallow the rest of
// the script from stdin. Every fallback's complaints go to /dev/null, as a
// missing od or tr must not print before the marker.

// uuidPath is where Linux hands out a fresh random UUID on every read.
const uuidPath = "/proc/sys/kernel/random/uuid"

// batchScript returns the shell script that runs cmds with separators; v2
// says whether stdout and stderr arrive separately. markerSource is the
// file read for the marker (uuidPath outside tests).
func batchScript(cmds []string, v2 bool, markerSource string) string {
	var b strings.Builder
	b.WriteString("m=$(cat " + Quote(markerSource) + " 2>/dev/null)\n")
	b.WriteString(`[ -n "$m" ] || m=$( (od -An -tx1 -N16 /dev/urandom | tr -dc 0-9a-f) 2>/dev/null)` + "\n")
	b.WriteString(`[ -n "$m" ] || m=r$$x$RANDOM$RANDOM$RANDOM$(date +%s 2>/dev/null)` + "\n")
	b.WriteString(`echo "$m"`)
	if v2 {
		b.WriteString(`; echo "$m" >&2`)
	}
	b.WriteString("\n")
	for i, c := range cmds {
		b.WriteString("(unset m; eval " + Quote(c) + ") </dev/null")
		if !v2 {
			b.WriteString(" 2>&1")
		}
		fmt.Fprintf(&b, "\nprintf '\\n%%s %%d %%d\\n' \"$m\" %d $?", i)
		if v2 {
			fmt.Fprintf(&b, "; printf '\\n%%s %%d\\n' \"$m\" %d >&2", i)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// errBatchShort says the session's output ended before every command's
// separator arrived.
var errBatchShort = errors.New("batch output ended early")

// splitBatch splits a batch session's stdout (and, under v2, stderr) into
// n Results. On error it returns the Results of the commands that
// completed before the output ended or went wrong.
func splitBatch(stdout, stderr []byte, n int, v2 bool) ([]Result, error) {
	if i := bytes.IndexByte(stdout, '\n'); !v2 && i > 0 && stdout[i-1] == '\r' {
		// Before Android 7 adbd ran shell: commands on a pty, which
		// turns every "\n" into "\r\n"; the marker line shows it, and
		// undoing it is the best that can be done for such a device.
		stdout = bytes.ReplaceAll(stdout, []byte("\r\n"), []byte("\n"))
	}
	marker, rest, err := batchHeader(stdout)
	if err != nil {
		return nil, fmt.Errorf("stdout: %w", err)
	}
	var errRest []byte
	if v2 {
		em, r, err := batchHeader(stderr)
		if err != nil {
			return nil, fmt.Errorf("stderr: %w", err)
		}
		if !bytes.Equal(em, marker) {
			return nil, fmt.Errorf("stderr marker %q differs from stdout marker %q", em, marker)
		}
		errRest = r
	}
	res := make([]Result, 0, n)
	sep := make([]byte, 0, len(marker)+16)
	for i := 0; i < n; i++ {
		sep = append(append(append(sep[:0], '\n'), marker...), ' ')
		sep = strconv.AppendInt(sep, int64(i), 10)
		sep = append(sep, ' ')
		j := bytes.Index(rest, sep)
		if j < 0 {
			return res, fmt.Errorf("%w: no end of command %d of %d on stdout", errBatchShort, i+1, n)
		}
		var r Result
		r.Stdout = rest[:j:j]
		after := rest[j+len(sep):]
		k := bytes.IndexByte(after, '\n')
		if k < 0 {
			return res, fmt.Errorf("%w: exit status of command %d of %d cut off", errBatchShort, i+1, n)
		}
		code, err := strconv.Atoi(string(after[:k]))
		if err != nil || code < 0 || code > 255 {
			return res, fmt.Errorf("command %d of %d: bad exit status %q", i+1, n, after[:k])
		}
		r.ExitCode = code
		rest = after[k+1:]
		if v2 {
			sep = append(sep[:len(sep)-1], '\n')
			j := bytes.Index(errRest, sep)
			if j < 0 {
				return res, fmt.Errorf("%w: no end of command %d of %d on stderr", errBatchShort, i+1, n)
			}
			r.Stderr = errRest[:j:j]
			errRest = errRest[j+len(sep):]
		}
		res = append(res, r)
	}
	return res, nil
}

// batchHeader reads the marker line a batch prints first.
func batchHeader(b []byte) (marker, rest []byte, err error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, nil, fmt.Errorf("%w: no marker line in %q", errBatchShort, clip(b))
	}
	marker = b[:i]
	if len(marker) < 8 || len(marker) > 64 {
		return nil, nil, fmt.Errorf("bad batch marker %q: want 8 to 64 characters", clip(marker))
	}
	for _, c := range marker {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return nil, nil, fmt.Errorf("bad batch marker %q: character %q", clip(marker), c)
		}
	}
	return marker, b[i+1:], nil
}

// clip shortens device text quoted in an error message, at excerpt's
// limit.
func clip(b []byte) []byte {
	const max = excerpt.Max
	if len(b) > max {
		return append(b[:max:max], "…"...)
	}
	return b
}
