package gfxinfo

import "testing"

func TestIsDump(t *testing.T) {
	for in, want := range map[string]bool{
		"Applications Graphics Acceleration Info:\r\nUptime: 1\r\n": true,
		"Graphics info for pid 1 [app]\n":                           true,
		"x\n---PROFILEDATA---\n":                                    true,
		"\xff\xfe-\x00-\x00-\x00P\x00R\x00O\x00F\x00I\x00L\x00E\x00D\x00A\x00T\x00A\x00-\x00-\x00-\x00\n\x00": true,
		"16666666\n1 2 3\n": false,
		"":                  false,
	} {
		if got := IsDump([]byte(in)); got != want {
			t.Errorf("IsDump(%q) = %v, want %v", in, got, want)
		}
	}
}
