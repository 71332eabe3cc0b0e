//go:build unix

package hostcmd

import (
	"os/exec"
	"syscall"
)

// group puts the command in a process group of its own, which a stop ends
// whole: a shell's children (maestro's JVM, gradle's daemon client) too.
func group(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends the command's process group SIGTERM, or SIGKILL.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	syscall.Kill(-cmd.Process.Pid, sig)
}
