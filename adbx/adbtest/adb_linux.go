package adbtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the test process dies, so a
// test killed by its timeout leaves no adb server behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
