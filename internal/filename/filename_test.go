package filename

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for in, want := range map[string]string{
		"TestFeed":               "TestFeed",
		"TestFeed/scroll fast":   "TestFeed_scroll_fast",
		"TestFeed/step=scroll#2": "TestFeed_step_scroll_2",
		"TestA  /  b":            "TestA_b",
		"../../etc/passwd":       "etc_passwd",
		".hidden":                "hidden",
		"v1.2-rc_3":              "v1.2-rc_3",
		"127.0.0.1:5555":         "127.0.0.1_5555",
		"Тест/ü":                 "",
		"":                       "",
		`C:\x`:                   "C_x",
		"a\x00b\xffc":            "a_b_c",
	} {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever the name, the file name is one path element of safe
// characters that no dot starts.
func FuzzOf(f *testing.F) {
	for _, s := range []string{"TestFeed/scroll fast", "../..", ".", "a\\b", "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := Of(name)
		if strings.Trim(got, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" {
			t.Errorf("Of(%q) = %q holds an unsafe character", name, got)
		}
		if strings.HasPrefix(got, ".") || strings.HasPrefix(got, "_") || strings.HasSuffix(got, "_") {
			t.Errorf("Of(%q) = %q", name, got)
		}
		if Of(got) != got {
			t.Errorf("Of(Of(%q)) = %q, not %q", name, Of(got), got)
		}
	})
}
