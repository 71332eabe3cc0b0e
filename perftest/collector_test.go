package perftest

import (
	"github.com/perfgate/perfgate/perftest/internal/framesrc"
	"github.com/perfgate/perfgate/result"
)

// bareCollector is a collector outside a running session, polling frames
// from source at 120 Hz, for feeding it captured device output.
func bareCollector(source FrameSource) *collector {
	s := &Session{res: &result.Result{}, names: map[string]int{}, cfg: Config{Package: "com.x.y"}}
	c := newCollector(s)
	c.refreshHz = 120
	c.frames.Use(framesrc.Config{Package: s.cfg.Package, Kind: string(source), RefreshHz: c.refreshHz})
	return c
}
