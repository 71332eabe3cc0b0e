package report

import "testing"

// A session's reports are named as filename.Of names its Result, and
// never take the folder's index.html or a name of nothing.
func TestPageStem(t *testing.T) {
	for in, want := range map[string]string{
		"TestFeed":             "TestFeed",
		"TestFeed/scroll fast": "TestFeed_scroll_fast",
		"../../etc/passwd":     "etc_passwd",
		"index":                "session-index",
		"":                     "session-",
		"Тест/ü":               "session-",
		`C:\x`:                 "C_x",
	} {
		if got := pageStem(in); got != want {
			t.Errorf("pageStem(%q) = %q, want %q", in, got, want)
		}
	}
}
