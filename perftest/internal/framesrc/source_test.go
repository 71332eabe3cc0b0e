package framesrc

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// bareSource is a gfxinfo or SurfaceFlinger source (kind) outside a
// session, at 120 Hz, for feeding it captured device output; its notes go
// into its Result.
func bareSource(kind string) *Source {
	r := &result.Result{}
	s := New(Env{
		Result:   r,
		Note:     func(format string, args ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, args...)) },
		StepAt:   func(int64) string { return "" },
		GfxClock: &fakeClock{}, ProcClock: &fakeClock{},
	})
	s.Use(Config{Package: "com.x.y", Kind: kind, RefreshHz: 120})
	return s
}

// fakeClock is the session's clock map: the intersection of the round
// trips' offset intervals, or the narrowest (the first of equals) once
// they do not overlap.
type fakeClock struct {
	n              int
	lo, hi         int64 // bounds of the offset device − host
	disjoint       bool
	bestLo, bestHi int64
}

func (c *fakeClock) Observe(source string, sendNs, recvNs, devNs, resNs int64) {
	lo, hi := devNs-recvNs, devNs+resNs-sendNs
	if c.n == 0 || hi-lo < c.bestHi-c.bestLo {
		c.bestLo, c.bestHi = lo, hi
	}
	if c.n > 0 {
		lo, hi = max(lo, c.lo), min(hi, c.hi)
	}
	c.disjoint = c.disjoint || lo > hi
	c.lo, c.hi = lo, hi
	c.n++
}

// interval is the offset bounds the map trusts.
func (c *fakeClock) interval() (lo, hi int64) {
	if c.disjoint {
		return c.bestLo, c.bestHi
	}
	return c.lo, c.hi
}

func (c *fakeClock) Latest(hostNs int64) (int64, bool) {
	_, hi := c.interval()
	return hostNs + hi, c.n > 0
}

// absorb hands the source a poll that printed out, sent at host time
// send, answered at recv, with /proc/uptime uptimeNs read after it.
func absorb(s *Source, out []byte, cmd string, filtered bool, send, recv, uptimeNs int64) int {
	return s.Absorb(Tick{SendNs: send, RecvNs: recv, UptimeNs: uptimeNs}, adbx.Result{Stdout: out}, cmd, filtered)
}

// TestFramesPending: Stop polls again while a window drew within Settle
// before the last dump and shows no row after the stop, or a row still
// drawing before the stop; not for an idle app.
func TestFramesPending(t *testing.T) {
	const ms = int64(1e6)
	for _, tc := range []struct {
		name   string
		dumps  [][]byte // polled at host = device time = the dump's Uptime
		stopMs int64
		want   bool
	}{
		{"drawing", [][]byte{gfxDump(1000, frame(0, 900, 905), frame(0, 990, 995))}, 1000, true},
		{"drawn past the stop", [][]byte{gfxDump(1000, frame(0, 990, 995)), gfxDump(1030, frame(0, 990, 995), frame(0, 1010, 1015))}, 1000, false},
		{"idle", [][]byte{gfxDump(2000, frame(0, 900, 905), frame(0, 990, 995))}, 2000, false},
		{"row still drawing", [][]byte{gfxDump(1000, frame(0, 600, 605), frame(0, 700, 705), frame(0, 995, 0))}, 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := bareSource(frames.SourceGfxInfo)
			src.cfg.Settle = 250 * 1e6
			for _, d := range tc.dumps {
				up, _ := strconv.ParseInt(string(regexp.MustCompile(`Uptime: (\d+)`).FindSubmatch(d)[1]), 10, 64)
				absorb(src, d, "gfx", false, up*ms, up*ms, 0)
			}
			if got := src.Pending(tc.stopMs*ms, tc.stopMs*ms); got != tc.want {
				t.Errorf("Pending = %v, want %v", got, tc.want)
			}
		})
	}
	src := bareSource(frames.SourceSurfaceFlinger)
	absorb(src, []byte("16666666\n1 100 2\n1 9223372036854775807 2\n"), "sf", false, 0, 1, 0)
	if !src.Pending(0, 1) {
		t.Error("a row waiting for its present fence is not pending")
	}
}
