// Package metrics holds perfgate's pure functions: parsers that turn device
// text (dumpsys, /proc, logcat, am) into typed values, and the math that turns
// those values into the numbers a gate checks (FPS, the jank definitions,
// percentiles, CPU %, traffic and memory summaries), and what says why
// frames janked: frame phases from the framestats stage columns, Looper's
// slow-message lines, simpleperf's samples, ActivityManager's ANR reports
// and the stack dumps of ANRs.
//
// It also holds what every layer above knows of a metric, so that each fact
// has one home: the catalogue (Catalogue, Lookup; typed names such as Jank,
// FPS, FrameTimeP95) with each metric's unit, direction, family and
// benchmark unit; Frame, the one type of a frame a session keeps; and
// Judge, the one function that checks a Limit against a step's Measurement
// and words the failure, for assertions, session-bound checks and reports
// alike. A new metric is one catalogue entry plus the computation of its
// value:
//
//	v := metrics.Judge(m, metrics.Limit{Metric: metrics.Jank, Value: 3})
//	if !v.Pass {
//		fmt.Println(v.Line()) // perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s …)
//	}
//
// ValidatePackage is the one check of a package name that goes into a
// device command, and ParseProcUptime and the other parsers the one parser
// of each device format.
//
// The package imports only the standard library, and every other package
// of perfgate builds on it: adbx reads the device's text with its parsers,
// the simulated phone (simdevice) prints what they read and names their
// reject reasons, and perftest, assert, report and history read its
// catalogue. Nothing here does I/O. Every formula follows "Metric definitions" in the
// project's design notes; each function's doc names the definition it
// implements. Parsers accept captures exactly as users store them (UTF-16LE
// with a BOM, UTF-8 BOM, CRLF) and return an error quoting the offending line
// on malformed input; none of them panics.
package metrics
