package adbx_test

import (
	"testing"

	"github.com/perfgate/perfgate/adbx"
)

func TestHostCommand(t *testing.T) {
	for _, tc := range []struct{ serial, device, want string }{
		{"", "dumpsys SurfaceFlinger --latency " + adbx.Quote("SurfaceView[com.example/com.example.Main]#0"),
			`adb shell "dumpsys SurfaceFlinger --latency 'SurfaceView[com.example/com.example.Main]#0'"`},
		{"emulator-5554", "echo $HOME", `adb -s emulator-5554 shell 'echo $HOME'`},
		{"a b", "echo it's", `adb -s "a b" shell "echo it's"`},
		{"", "echo $it's", `adb shell 'echo $it'\''s'`},
	} {
		if got := adbx.HostCommand(tc.serial, tc.device); got != tc.want {
			t.Errorf("HostCommand(%q, %q) = %s, want %s", tc.serial, tc.device, got, tc.want)
		}
	}
}
