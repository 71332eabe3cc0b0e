// Package metrics holds perfgate's pure functions: parsers that turn device
// text (dumpsys, /proc, logcat, am) into typed values, and the math that turns
// those values into the numbers a gate checks (FPS, the jank definitions,
// percentiles, CPU %, traffic and memory summaries).
//
// Nothing here does I/O. Every formula follows "Metric definitions" in the
// project's design notes; each function's doc names the definition it
// implements. Parsers accept captures exactly as users store them (UTF-16LE
// with a BOM, UTF-8 BOM, CRLF) and return an error quoting the offending line
// on malformed input; none of them panics.
package metrics
