package logclock

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
)

func TestParseLogClock(t *testing.T) {
	ok := func(s string) adbx.Result { return adbx.Result{Stdout: []byte(s)} }
	c, err := Parse(ok("12000.50 1.00\n"), ok("1732438812.123456789 2024-11-24 10:00:12\n"))
	if err != nil || c.Up != 12000500e6 || c.Res != time.Millisecond || !c.Epoch.Equal(time.Unix(1732438812, 123456789)) ||
		c.Local != time.Date(2024, 11, 24, 10, 0, 12, 123456789, time.UTC) {
		t.Errorf("clock %+v, %v", c, err)
	}
	// An old toolbox date prints %N as N: a second's resolution.
	if c, err := Parse(ok("12000.50 1.00\n"), ok("1732438812.N 2024-11-24 10:00:12\n")); err != nil || c.Res != time.Second {
		t.Errorf("clock %+v, %v", c, err)
	}
	for _, bad := range [][2]adbx.Result{
		{{Stderr: []byte("cat: /proc/uptime: Permission denied"), ExitCode: 1}, ok("1 2024-11-24 10:00:12")},
		{ok("12000.50"), {Stderr: []byte("/system/bin/sh: date: inaccessible or not found"), ExitCode: 127}},
		{ok("12000.50"), ok("Sun Nov 24 10:00:12 UTC 2024")},
	} {
		if _, err := Parse(bad[0], bad[1]); err == nil {
			t.Errorf("%q %q: no error", bad[0].Stdout, bad[1].Stdout)
		} else if bad[0].ExitCode+bad[1].ExitCode > 0 && !strings.Contains(err.Error(), "exit status") {
			t.Errorf("error %v does not give the exit status", err)
		}
	}
}
