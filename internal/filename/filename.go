// Package filename makes names perfgate writes files under (a test's, a
// step's, a device serial) into file names: the same on every OS, and a
// link to them needs no escaping.
//
//	filename.Of("TestFeed/scroll fast") // "TestFeed_scroll_fast"
package filename

import "strings"

// Of is name made a file name: every run of characters other than ASCII
// letters, digits, '.', '_' and '-' becomes one '_' (a path separator, a
// blank, '#' that would end a link at a fragment, ':' of a serial, any
// non-ASCII letter), then leading dots and underscores and trailing
// underscores are dropped, so the name is never hidden and never climbs
// a folder. "" when nothing is left; the caller names that case.
//
//	"TestFeed/step=scroll#2" → "TestFeed_step_scroll_2"
//	"../../etc/passwd"       → "etc_passwd"
//	"127.0.0.1:5555"         → "127.0.0.1_5555"
func Of(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	run := false
	for _, r := range name {
		if r == '.' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			run = false
			continue
		}
		if !run {
			b.WriteByte('_')
		}
		run = true
	}
	return strings.TrimRight(strings.TrimLeft(b.String(), "._"), "_")
}
