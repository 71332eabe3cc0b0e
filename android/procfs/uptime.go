package procfs

import (
	"github.com/perfgate/perfgate/android/devtext"
	"math"
	"strconv"
	"strings"
	"time"
)

// UptimeSource names /proc/uptime in errors.
const UptimeSource = "/proc/uptime"

// ParseUptime reads the first field of /proc/uptime ("12345.67
// 90023.13": seconds since boot on CLOCK_MONOTONIC's scale, with two
// decimals, then the idle time) as ns. Digits past the ninth decimal are
// dropped.
func ParseUptime(b []byte) (int64, error) {
	line, _, _ := strings.Cut(strings.TrimSpace(string(devtext.Normalize(b))), "\n")
	bad := func(reason string) (int64, error) {
		return 0, &devtext.ParseError{Source: UptimeSource, Line: 1, Text: line, Reason: reason}
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return bad("empty")
	}
	whole, frac, _ := strings.Cut(f[0], ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	// An uptime past 292 years would overflow int64 ns: not a clock.
	if err != nil || sec < 0 || sec > math.MaxInt64/int64(time.Second)-1 {
		return bad("want seconds since boot")
	}
	ns := sec * int64(time.Second)
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		n, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || n < 0 {
			return bad("want seconds since boot")
		}
		for i := len(frac); i < 9; i++ {
			n *= 10
		}
		ns += n
	}
	return ns, nil
}
