package simlab_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/simlab"
)

func TestPhoneSpecConfig(t *testing.T) {
	for _, tc := range []struct {
		spec simlab.PhoneSpec
		err  string
	}{
		{simlab.PhoneSpec{ReplaySpeed: 1, Workload: "janky-scroll", API: 33}, ""},
		{simlab.PhoneSpec{ReplaySpeed: 1, FramePct: 60}, "--frame-noise 60: want 0 to"},
		{simlab.PhoneSpec{ReplaySpeed: 1, NoiseSeed: 7}, "--noise-seed goes with"},
		{simlab.PhoneSpec{ReplaySpeed: 2}, "--package and --replay-speed go with --replay"},
		{simlab.PhoneSpec{ReplaySpeed: 1, Workload: "no-such-workload"}, `--workload "no-such-workload" is neither`},
	} {
		cfg, err := tc.spec.Config()
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%+v: %v", tc.spec, err)
		case tc.err == "" && (cfg.Workload == nil || cfg.API != 33):
			t.Errorf("%+v: config %+v", tc.spec, cfg)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%+v: error %v, want %q", tc.spec, err, tc.err)
		}
	}
}

func TestLabOf(t *testing.T) {
	if lab, err := simlab.LabOf(4, ""); err != nil || len(lab.Phones) != 4 {
		t.Errorf("LabOf(4) = %d phones, %v", len(lab.Phones), err)
	}
	for _, c := range []int{-1, 65} {
		if _, err := simlab.LabOf(c, ""); err == nil {
			t.Errorf("LabOf(%d): no error", c)
		}
	}
	if _, err := simlab.LabOf(2, "lab.json"); err == nil || err.Error() != "--count and --lab: give one" {
		t.Errorf("LabOf(2, lab.json): %v", err)
	}
}
