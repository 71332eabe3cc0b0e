package perftest

// TestingT is the part of *testing.T a session needs; *testing.T,
// *testing.B and testify's require.TestingT implementations satisfy it.
// Helper, Name and Cleanup are used when the value has them.
type TestingT interface {
	Errorf(format string, args ...any)
	FailNow()
}

type helperT interface{ Helper() }
type namedT interface{ Name() string }
type cleanupT interface{ Cleanup(func()) }
