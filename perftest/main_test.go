package perftest_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets four tests run at once unless -parallel says otherwise:
// the tests on the simulated phone spend their time waiting on its clock
// (steps of a second or more, in real time), not on the CPU, so running
// only as many as there are cores (the default) leaves the machine idle.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}
