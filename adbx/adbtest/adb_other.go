//go:build !linux

package adbtest

import "os/exec"

// dieWithParent does nothing where the kernel offers no parent-death
// signal; the test's cleanup still stops the server.
func dieWithParent(*exec.Cmd) {}
