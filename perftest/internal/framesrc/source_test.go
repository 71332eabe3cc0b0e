package framesrc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestPlanAndDue: a SurfaceFlinger poll reads the clock before its dump; a
// gfxinfo poll is filtered once a dump showed its columns. Frames are due
// on the first tick, then once the time since the last poll plus the next
// tick's interval passes a quarter of the ring's time (1 s at 120 Hz), and
// on every tick while a row is still drawing.
func TestPlanAndDue(t *testing.T) {
	const ms = int64(1e6)
	sf := bareSource(frames.SourceSurfaceFlinger)
	sf.cfg.Layer = "L"
	if p := sf.Plan(ms); !p.Uptime || p.Filtered || p.Cmd != "dumpsys SurfaceFlinger --latency L" {
		t.Errorf("SurfaceFlinger plan %+v", p)
	}

	s := bareSource(frames.SourceGfxInfo)
	s.cfg.Interval = 100 * time.Millisecond
	if !s.Due(0) {
		t.Error("the first tick does not poll frames")
	}
	if p := s.Plan(1000 * ms); p.Uptime || p.Filtered || p.Cmd != "dumpsys gfxinfo com.x.y framestats" {
		t.Errorf("first gfxinfo plan %+v", p)
	}
	absorb(s, gfxDump(1000, frame(0, 900, 905), frame(0, 916, 920)), "gfx", false, 1000*ms, 1000*ms, 0)
	if s.Due(1140*ms) || !s.Due(1160*ms) {
		t.Errorf("due at 140 ms after the poll: %v, at 160 ms: %v; want false, true", s.Due(1140*ms), s.Due(1160*ms))
	}
	if p := s.Plan(1160 * ms); !p.Filtered || !strings.HasPrefix(p.Cmd, "dumpsys gfxinfo com.x.y framestats | grep -E '^(") {
		t.Errorf("gfxinfo plan after a dump %+v", p)
	}
	absorb(s, gfxDump(1170, frame(0, 916, 920), frame(0, 933, 0)), "gfx", true, 1160*ms, 1170*ms, 0)
	if !s.Due(1170 * ms) {
		t.Error("a row still drawing does not make the next tick poll frames")
	}
}
