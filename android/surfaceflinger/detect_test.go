package surfaceflinger

import "testing"

func TestIsLatency(t *testing.T) {
	for in, want := range map[string]bool{
		"16666666\n1 2 3\n":               true,
		"\r\n  8333333\r\n":               true,
		"\xff\xfe1\x006\x00\n\x00":        true, // UTF-16LE, BOM first
		"---PROFILEDATA---\n":             false,
		"Graphics info for pid 1 [app]\n": false,
		"":                                false,
	} {
		if got := IsLatency([]byte(in)); got != want {
			t.Errorf("IsLatency(%q) = %v, want %v", in, got, want)
		}
	}
}
