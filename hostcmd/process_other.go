//go:build !unix

package hostcmd

import "os/exec"

// group does nothing where there are no process groups.
func group(*exec.Cmd) {}

// signalGroup kills the command alone.
func signalGroup(cmd *exec.Cmd, _ bool) { cmd.Process.Kill() }
