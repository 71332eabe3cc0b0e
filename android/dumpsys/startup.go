package dumpsys

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// AmStartSource names `am start -W` in errors.
const AmStartSource = "am start -W"

// ErrAmStartFailed is matched (errors.Is) when am printed "Error: ..." or
// "Error type N" instead of a launch result (unknown activity, not exported).
var ErrAmStartFailed = errors.New("launch failed")

// AmStart is the result `am start -W` prints. Times are milliseconds, -1
// when the line is absent: Android 10+ prints no ThisTime, and
// "Status: timeout" has no TotalTime.
type AmStart struct {
	Status      string // "ok", "timeout", ...
	LaunchState string // "COLD", "WARM", "HOT", "UNKNOWN (-1)"; "" before Android 10
	// Activity is the activity that finished the launch. It may differ from
	// the one started (a trampoline, or the launcher when the app exited).
	Activity    string
	ThisTimeMS  int64
	TotalTimeMS int64
	WaitTimeMS  int64
	Complete    bool // "Complete" printed last
}

// OK reports whether the launch completed ("Status: ok").
func (a AmStart) OK() bool { return a.Status == "ok" }

// ParseAmStart parses `am start -W [-S]` output. Lines it does not know
// (Stopping:, Starting:, Warning:, comments) are skipped. "Error: ..." gives
// an error matching ErrAmStartFailed that quotes the line; output with no
// Status line is a *devtext.ParseError.
func ParseAmStart(b []byte) (AmStart, error) {
	a := AmStart{ThisTimeMS: -1, TotalTimeMS: -1, WaitTimeMS: -1}
	sawStatus := false
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "Error") {
			return AmStart{}, fmt.Errorf("%s: %w: %s", AmStartSource, ErrAmStartFailed, excerpt.Quote(t))
		}
		if t == "Complete" {
			a.Complete = true
			continue
		}
		key, val, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "Status":
			a.Status, sawStatus = val, true
		case "LaunchState":
			a.LaunchState = val
		case "Activity":
			a.Activity = val
		case "ThisTime", "TotalTime", "WaitTime":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil || v < 0 {
				return AmStart{}, &devtext.ParseError{Source: AmStartSource, Line: i + 1, Text: ln, Reason: "bad " + key}
			}
			switch key {
			case "ThisTime":
				a.ThisTimeMS = v
			case "TotalTime":
				a.TotalTimeMS = v
			case "WaitTime":
				a.WaitTimeMS = v
			}
		}
	}
	if !sawStatus {
		return AmStart{}, &devtext.ParseError{Source: AmStartSource, Reason: "no Status line"}
	}
	return a, nil
}
