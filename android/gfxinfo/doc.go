// Package gfxinfo reads `dumpsys gfxinfo <pkg> [framestats]`: the
// processes and windows of a dump, each window's summary statistics and
// histograms, and its PROFILEDATA rows, found by the header's column names
// (Parse, or Scan to stream a capture of any size). A row that cannot be a
// frame is rejected with a reason (RowReject, Judge, FramesOf): a row still
// drawing, a time beyond the dump's clock, a sentinel.
//
//	g, err := gfxinfo.Parse(out)
//	for _, w := range g.Windows() {
//		rows, rejected := gfxinfo.FramesOf(w.Frames, g.ClockNs())
//		…
//	}
//
// The frame math over the rows (jank, percentiles) is package frames'.
package gfxinfo
