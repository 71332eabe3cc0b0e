package dumpsys

import (
	"errors"
	"reflect"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseDisplayRefresh(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want DisplayRefresh
	}{
		// modeId 3 is the 1008x2244 mode at 120.00001 fps.
		{"pixel 120 Hz", fixtures.Read(t, "display/flashlight_dumpsys_display_grep_120hz_pixel.txt"), DisplayRefresh{
			ActiveHz: 120.00001, RenderHz: 120.00001, ModeID: 3, Modes: []DisplayMode{
				{1, 1344, 2992, 60}, {2, 1344, 2992, 120.00001}, {3, 1008, 2244, 120.00001}, {4, 1008, 2244, 60},
			}}},
		{"60 Hz", fixtures.Read(t, "display/flashlight_dumpsys_display_grep_60hz.txt"), DisplayRefresh{
			ActiveHz: 60.000004, ModeID: 1, Modes: []DisplayMode{{1, 480, 854, 60.000004}}}},
		// Older releases: no modes, only DisplayInfo's "N fps" / mRefreshRate.
		{"PhysicalDisplayInfo", []byte("  PhysicalDisplayInfo{1080 x 1920, 60.0 fps, density 3.0, 442.451 x 443.345 dpi, secure true}\n"),
			DisplayRefresh{ActiveHz: 60}},
		{"mRefreshRate", []byte("  mRefreshRate=59.5\n"), DisplayRefresh{ActiveHz: 59.5}},
		// A 90 Hz panel rendering at 45: renderFrameRate with no mode list.
		{"render rate only", []byte("DisplayDeviceInfo{\"Built-in Screen\": modeId 7, renderFrameRate 45.0, defaultModeId 1}\n"),
			DisplayRefresh{ActiveHz: 45, RenderHz: 45, ModeID: 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDisplayRefresh(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for name, in := range map[string]string{
		"empty":   "",
		"no rate": "DisplayDeviceInfo{\"Built-in Screen\": 480 x 854}\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseDisplayRefresh([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func FuzzParseDisplayRefresh(f *testing.F) {
	memFuzzAddFixtures(f, "display/flashlight_dumpsys_display_grep_120hz_pixel.txt")
	memFuzzAddFixtures(f, "display/flashlight_dumpsys_display_grep_60hz.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := ParseDisplayRefresh(b); err == nil && !(d.ActiveHz > 0) {
			t.Fatalf("ActiveHz %v without error", d.ActiveHz)
		}
	})
}
