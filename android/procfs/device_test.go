package procfs

import (
	"encoding/json"
	"errors"
	"github.com/perfgate/perfgate/android/devtext"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"0-7\n", 8},
		{"0", 1},
		{"0-3,6-7", 6},
		{"0,2,4", 3},
		{"\xff\xfe0\x00-\x003\x00\r\x00\n\x00", 4}, // saved by PowerShell
	}
	for _, tc := range tests {
		if got, err := ParseCPUList([]byte(tc.in)); got != tc.want || err != nil {
			t.Errorf("ParseCPUList(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "7-0", "a-b", "0-99999999999", "0-3,", "cat: /sys/devices/system/cpu/possible: No such file or directory"} {
		var pe *devtext.ParseError
		if n, err := ParseCPUList([]byte(in)); !errors.As(err, &pe) || n != 0 {
			t.Errorf("ParseCPUList(%q) = %d, %v; want a *ParseError", in, n, err)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-7", "0-3,6-7", "0", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseCPUList(b)
		if (err == nil) != (n > 0) || n > len(b)<<16 {
			t.Fatalf("ParseCPUList(%q) = %d, %v", b, n, err)
		}
	})
}

func TestParseBuildProp(t *testing.T) {
	// Two files read with one cat: the first file that sets a key wins.
	in := "# begin build properties\r\nro.build.version.sdk=34\r\nro.product.model = Pixel 8\n=x\nnoequals\n" +
		"ro.build.version.sdk=33\nro.build.display.id=UQ1A.240105.004 release-keys\n"
	got := ParseBuildProp([]byte(in))
	want := map[string]string{"ro.build.version.sdk": "34", "ro.product.model": "Pixel 8", "ro.build.display.id": "UQ1A.240105.004 release-keys"}
	if len(got) != len(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func FuzzParseBuildProp(f *testing.F) {
	f.Add([]byte("# begin build properties\nro.build.version.sdk=34\r\nro.product.model = Pixel 8\n=x\nnoequals\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for k, v := range ParseBuildProp(b) {
			if k == "" || strings.ContainsAny(k, "\n=") || strings.Contains(v, "\n") || strings.TrimSpace(k) != k {
				t.Fatalf("bad property %q=%q", k, v)
			}
		}
	})
}

func TestDeviceFacts(t *testing.T) {
	d := DeviceFacts{Serial: "emulator-5554", Manufacturer: "Google", Model: "Pixel 7", Release: "14", API: 34, Cores: 8, ClockTicks: 100, RefreshHz: 90}
	if d.Name() != "Google Pixel 7" || d.String() != "Google Pixel 7, Android 14 (API 34)" {
		t.Errorf("Name %q, String %q", d.Name(), d.String())
	}
	if n := (DeviceFacts{Model: "sdk_gphone64"}).Name(); n != "sdk_gphone64" {
		t.Errorf("Name without a manufacturer = %q", n)
	}
	// The Result's "device" object: these keys are the schema.
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"serial":"emulator-5554","model":"Pixel 7","manufacturer":"Google","api":34,"release":"14","cores":8,"clock_ticks_per_s":100,"refresh_hz":90}`
	if string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
}
