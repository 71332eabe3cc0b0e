package perftest

import (
	"github.com/perfgate/perfgate/metrics"
)

// absorbSF keeps the --latency rows whose present time B is newer than the
// last kept (DESIGN.md: across polls keep only B greater than the last B
// already kept).
func (c *collector) absorbSF(text []byte, cmd string, send int64) int {
	l, err := metrics.ParseSurfaceFlingerLatency(text)
	if err != nil {
		c.note("frames: %s: %v", cmd, err)
		return 0
	}
	if l.RefreshPeriod > 0 && c.sfPeriod == 0 {
		c.sfPeriod = l.RefreshPeriod
	}
	if len(l.Frames)+l.Dropped >= sfBufferLen && c.sfLast != 0 && len(l.Frames) > 0 && l.Frames[0].ActualPresent > c.sfLast {
		c.lostFrames(send, cmd)
	}
	kept, last := metrics.FrameDedupSurfaceFlinger(c.sfLast, l.Frames)
	for _, f := range kept {
		c.s.res.Frames = append(c.s.res.Frames, Frame{
			Source: string(SourceSurfaceFlinger), Window: c.layer,
			DesiredPresentNs: f.DesiredPresent, ActualPresentNs: f.ActualPresent, FrameReadyNs: f.FrameReady,
		})
	}
	c.sfLast = last
	return len(kept)
}

// pickLayer chooses the app's layer from `dumpsys SurfaceFlinger --list`
// with metrics.PickLayer; "" when the app has none.
func pickLayer(list []byte, pkg string) string {
	layers, err := metrics.ParseSurfaceFlingerList(list)
	if err != nil {
		return ""
	}
	l, err := metrics.PickLayer(layers, pkg)
	if err != nil {
		return ""
	}
	return l.Name
}
