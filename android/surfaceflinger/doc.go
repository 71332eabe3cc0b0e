// Package surfaceflinger reads what `dumpsys SurfaceFlinger` prints: the
// --latency rows of a layer (ParseLatency, or ScanLatency and ScanTimes to
// stream a capture of any size), the layer list and the pick of an app's
// frame-producing layer (ParseList, PickLayer), the frame counter and
// --timestats. Rows with a pending fence or going backwards are rejected
// with a reason (RowReject).
//
//	lat, err := surfaceflinger.ParseLatency(out)
//	fmt.Println(lat.RefreshPeriod, len(surfaceflinger.PresentTimes(lat.Frames)))
//
// The frame math over the present times is package frames'.
package surfaceflinger
