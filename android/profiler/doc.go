// Package profiler reads sampled and traced stacks: simpleperf's
// report-sample and perf script output (ParseSimpleperfSamples,
// ReadSimpleperfSamples) and ART method traces from `am profile`
// (ParseARTTrace), with the helpers that name and fold their frames.
//
//	s, err := profiler.ParseSimpleperfSamples(out)
//	for _, x := range s.Samples { fmt.Println(profiler.FoldStack(x.Frames)) }
package profiler
