//go:build unix

package testenv

import "syscall"

func execSelf(exe string, args, env []string) error { return syscall.Exec(exe, args, env) }
