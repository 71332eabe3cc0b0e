package metrics

import "testing"

func TestBaseStep(t *testing.T) {
	for in, want := range map[string]string{
		"scroll":      "scroll",
		"scroll#2":    "scroll",
		"scroll#12":   "scroll",
		"a#b#3":       "a#b",
		"scroll#":     "scroll#",
		"scroll#2a":   "scroll#2a",
		"#2":          "#2",
		"open feed#2": "open feed",
	} {
		if got := BaseStep(in); got != want {
			t.Errorf("BaseStep(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBenchToken(t *testing.T) {
	if got, want := BenchToken("open feed/x=1\tnow\n"), "open_feed_x_1_now_"; got != want {
		t.Errorf("BenchToken = %q, want %q", got, want)
	}
}
