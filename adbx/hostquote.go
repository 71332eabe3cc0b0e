package adbx

import "strings"

// HostCommand is the command line a POSIX shell on the host runs to have
// serial's device ("" for adb's default one) run device, a command for the
// device's shell. device is quoted once more for the host's shell, since
// `adb shell` joins its arguments with spaces before the device's shell
// splits them: quotes meant for the device (Quote) go inside quotes meant
// for the host.
func HostCommand(serial, device string) string {
	cmd := "adb"
	if serial != "" {
		cmd += " -s " + hostQuote(serial)
	}
	return cmd + " shell " + hostQuote(device)
}

// hostQuote quotes s as one word for a POSIX shell on the host: in double
// quotes when nothing in s is special there (it reads best), else in
// single quotes.
func hostQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\!*?[]()<>|;&#~{}") {
		return s
	}
	if !strings.ContainsAny(s, "\"$`\\!") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
