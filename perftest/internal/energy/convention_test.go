package energy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/result"
)

// The real battery captures (fixtures SOURCES.md section 9), each read as
// the lane reads its source, with the convention each tells, or why it
// tells none.
func TestConventionOfRealCaptures(t *testing.T) {
	for _, tc := range []struct {
		file string
		read func(t *testing.T, b []byte) result.PowerSample
		want string
	}{
		// Pixel: sysfs current_now −11718 µA beside dumpsys status 4 (not
		// charging) on AC at 100 %: a battery held full by its charger,
		// whose small current may flow either way.
		{"battery/frameprobe_pixel11pro_sysfs_current_voltage_plus_dumpsys_battery.txt", pixelComposite,
			"cannot be told: status [not charging] says neither charging nor discharging, and the level did not fall"},
		// Samsung S23: "current now: 559" (mA) with status 2, USB powered.
		{"battery/frameprobe_samsung_s23_api34_dumpsys_battery.txt", dumpsysRead,
			"negative = discharging (detected: status charging, current > 0 in 1 read)"},
		// Xiaomi Pad 6: AOSP's dumpsys battery prints no current.
		{"battery/xiaomi_pad6_api34_dumpsys_battery.txt", dumpsysRead, "cannot be told: no read has a current"},
		// MediaTek uevent: no CURRENT_NOW key (BATTERYAVERAGECURRENT=0 is
		// a vendor average, not read).
		{"battery/mtk_battery_uevent_from_perl_comment.txt", ueventRead, "cannot be told: no read has a current"},
	} {
		p := tc.read(t, fixtures.Read(t, tc.file))
		var rs []Reading
		if p.Status != "no current" {
			rs = readings([]result.PowerSample{p})
		}
		if got := Detect(rs).Text; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.file, got, tc.want)
		}
	}
}

func pixelComposite(t *testing.T, b []byte) result.PowerSample {
	sys, dump, ok := bytes.Cut(b, []byte("#dumpsys\n"))
	lines := strings.Fields(strings.TrimPrefix(string(sys), "#sysfs"))
	if !ok || len(lines) != 2 {
		t.Fatalf("pixel capture: want #sysfs, two values, #dumpsys; got %q", sys)
	}
	bs, err := dumpsys.ParseBattery(dump)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseSysfs(adbxResult(lines[0] + "\n" + lines[1] + "\n" + bs.Status + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.CurrentMA != -11.718 || s.VoltageMV != 4446.015 {
		t.Errorf("pixel sysfs read %+v, want −11.718 mA, 4446.015 mV", s)
	}
	return s
}

func dumpsysRead(t *testing.T, b []byte) result.PowerSample {
	bs, err := dumpsys.ParseBattery(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bs.HasCurrent {
		return result.PowerSample{Status: "no current"}
	}
	return fromState(bs)
}

func ueventRead(t *testing.T, b []byte) result.PowerSample {
	bs, err := dumpsys.ParseBatteryUevent(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bs.HasCurrent {
		return result.PowerSample{Status: "no current"}
	}
	return fromState(bs)
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []Reading
		want  int
		text  string
	}{
		{"discharging negative", []Reading{{CurrentMA: -300, HasCurrent: true, Status: "discharging"}}, -1, "negative = discharging"},
		{"discharging positive", []Reading{{CurrentMA: 300, HasCurrent: true, Status: "discharging"}}, 1, "positive = discharging"},
		{"charging negative", []Reading{{CurrentMA: -900, HasCurrent: true, Status: "charging"}}, 1, "positive = discharging"},
		{"disagree", []Reading{{CurrentMA: -300, HasCurrent: true, Status: "discharging"}, {CurrentMA: 200, HasCurrent: true, Status: "discharging"}}, 0, "cannot be told: status discharging with 1 negative and 1 positive"},
		{"level fell", []Reading{{CurrentMA: 250, HasCurrent: true, Status: "unknown", LevelPct: 80, HasLevel: true},
			{CurrentMA: 260, HasCurrent: true, Status: "unknown", LevelPct: 79, HasLevel: true}}, 1, "positive = discharging (detected: level fell 80% → 79%"},
		{"tiny", []Reading{{CurrentMA: 0.4, HasCurrent: true, Status: "discharging"}}, 0, "cannot be told: every current is under 1 mA"},
	} {
		c := Detect(tc.reads)
		if c.Discharge != tc.want || !strings.HasPrefix(c.Text, tc.text) {
			t.Errorf("%s: %+v, want %d, %q…", tc.name, c, tc.want, tc.text)
		}
	}
}

func adbxResult(out string) adbx.Result { return adbx.Result{Stdout: []byte(out)} }
