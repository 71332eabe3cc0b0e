// Package logcat reads logcat output in its formats (brief, threadtime,
// long, …) into entries (Parse, ParseLine), and the lines perfgate reads
// in it: Choreographer's skipped frames, Davey lines, ActivityManager's
// Displayed and process events (start, crash, ANR, kill), the Looper's
// slow-dispatch lines and ANR reports with their stack dumps.
//
//	entries, err := logcat.Parse(out)
//	for _, s := range logcat.Skipped(entries) { fmt.Println(s.Frames) }
package logcat
