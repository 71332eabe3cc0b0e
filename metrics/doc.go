// Package metrics is perfgate's catalogue of metrics: what every layer
// knows of a metric, so that each fact has one home. Catalogue and Lookup
// give each typed name (Jank, FPS, FrameTimeP95, …) its unit, direction,
// family, definition and benchmark unit; FormatValue is the one formatter
// of a value in its unit.
//
//	def, _ := metrics.Lookup(metrics.Jank)
//	fmt.Println(def.Unit, metrics.FormatValue(3, def.Unit))
//
// Budgets on these metrics are package budget's. A new metric is one
// catalogue entry plus the computation of its value. The device text the
// values come from is read by the packages under android/; the frame math
// (FPS, the jank definitions, percentiles, phases) is package frames'.
package metrics
