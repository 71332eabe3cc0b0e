// Package frames is perfgate's frame math: Frame, the one type of a frame
// a session keeps, and over a window of frames every definition the
// design's "Metric definitions" give — fps, the deadline-missed count,
// PerfDog's Jank and BigJank, Chromium's jank, Matrix drop levels, Android
// vitals' slow and frozen frames, GT smoothness, nearest-rank percentiles
// — with their summary (Summary), de-duplication across polls and the
// phases of a frame (PhasesOf).
//
//	lat, _ := surfaceflinger.ParseLatency(out)
//	kept, _ := frames.DedupSurfaceFlinger(0, lat.Frames)
//	s := frames.SummarizeSurfaceFlinger(surfaceflinger.PresentTimes(kept), lat.RefreshPeriod)
//
// The rows come from the parsers under android/ (gfxinfo, surfaceflinger,
// logcat); nothing here reads device text or does I/O. Each function's doc
// names the definition it implements.
package frames
