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
// benchmark unit; and Frame, the one type of a frame a session keeps.
// Budgets on these metrics are package budget's. A new metric is one
// catalogue entry plus the computation of its value.
//
// ValidatePackage is the one check of a package name that goes into a
// device command, and ParseProcUptime and the other parsers the one parser
// of each device format.
//
// The package imports only the standard library (and internal/excerpt, to
// quote a bounded piece of bad input), and every other package
// of perfgate builds on it: adbx reads the device's text with its parsers,
// the simulated phone (simdevice) prints what they read and names their
// reject reasons, and perftest, budget, report and history read its
// catalogue. Nothing here does I/O. Every formula follows "Metric definitions" in the
// project's design notes; each function's doc names the definition it
// implements. Parsers accept captures exactly as users store them (UTF-16LE
// with a BOM, UTF-8 BOM, CRLF) and return an error quoting the offending line
// on malformed input; none of them panics. Every quote is a bounded excerpt,
// and the streaming readers (ScanGfxInfo, ScanSurfaceFlingerLatency,
// ReadText) refuse a line longer than MaxLine before they hold it.
package metrics
