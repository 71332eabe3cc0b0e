package perftest

// Repeat runs fn as n iterations of one step, the way Macrobenchmark
// repeats a measured block: step name, then "name#2", "name#3", … (the
// names a repeated step gets), each with its own window and summaries.
// Regression gates (budget.Regressions, assert.NoRegression) and `perfgate
// compare` treat them
// as n samples of "name". fn gets the iteration, from 0. Whatever must
// happen between iterations that should not be measured (a cold restart,
// scrolling back to the top) belongs in fn before a Begin, or in a step of
// another name.
func (s *Session) Repeat(name string, n int, fn func(i int)) {
	for i := range n {
		s.Step(name, func() { fn(i) })
	}
}
