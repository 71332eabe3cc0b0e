package adbx

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/android/dumpsys"
)

// Quote quotes s for the device's POSIX shell (mksh or toybox sh): the
// result is one word whose value is exactly s, whatever s holds.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		if !isSafeShellByte(s[i]) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	// Inside single quotes nothing is special except the quote itself,
	// which is closed, escaped and reopened.
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isSafeShellByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("-_./:,+@%=", c) >= 0
}

// validatePackage checks a package name that goes into a device command.
func validatePackage(pkg string) error {
	if err := dumpsys.ValidatePackage(pkg); err != nil {
		return fmt.Errorf("adbx: %w", err)
	}
	return nil
}
