package adbx

import (
	"fmt"
	"strings"
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

// ValidatePackage checks that name is an Android application id, as the
// Java package grammar and Android's manifest rules allow: two or more
// dot-separated segments, each starting with a letter and holding only
// letters, digits and '_'. A process name suffix such as ":remote" is not
// part of a package name. It refuses everything else, so that a package
// name can never smuggle shell syntax ("com.x;reboot", "$(id)", quotes,
// spaces) into a device command.
func ValidatePackage(name string) error {
	if name == "" {
		return fmt.Errorf("adbx: invalid package name %q: empty", name)
	}
	if len(name) > 255 {
		return fmt.Errorf("adbx: invalid package name %q: longer than 255 bytes", name)
	}
	segs := strings.Split(name, ".")
	if len(segs) < 2 {
		return fmt.Errorf("adbx: invalid package name %q: want at least two dot-separated segments", name)
	}
	for _, seg := range segs {
		if seg == "" {
			return fmt.Errorf("adbx: invalid package name %q: empty segment", name)
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if i == 0 && !letter {
				return fmt.Errorf("adbx: invalid package name %q: segment %q must start with a letter", name, seg)
			}
			if !letter && !(c >= '0' && c <= '9') && c != '_' {
				return fmt.Errorf("adbx: invalid package name %q: character %q not allowed", name, c)
			}
		}
	}
	return nil
}
