package simdevice

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// A warm start's truth has ActivityThread's phases of a warm start
// (activityStart, activityResume, the first doFrame), a hot start's those
// of a hot start (activityResume, the first doFrame), in order within
// the launch, each kind's sections from the start of its first phase at
// the workload's lengths, the I/O in them counted.
func TestWarmAndHotStartPhases(t *testing.T) {
	wl := mustPreset(t, "slow-start")
	wl.Startup.Warm = WarmStart{Sections: []StartSection{{Name: "com.example.MainActivity.onCreate", Ms: 250, IOMs: 30}}}
	wl.Startup.Hot = WarmStart{Sections: []StartSection{{Name: "com.example.MainActivity.onResume", Ms: 50}}}
	w, _ := newTestWorld(t, Config{Workload: wl})
	am := func() {
		var o, e bytes.Buffer
		if st := w.Am(context.Background(), strings.Fields("start -W -n "+wl.Package+"/.MainActivity"), &o, &e); st != 0 {
			t.Fatalf("am start: %d %s", st, e.String())
		}
	}
	am()
	w.Screen().Key(4)
	am()
	w.Screen().Key(3)
	am()
	st := w.Truth().Startups
	if len(st) != 3 || st[1].Kind != "WARM" || st[2].Kind != "HOT" {
		t.Fatalf("startups %+v", st)
	}
	for _, tc := range []struct {
		ts    TruthStartup
		names []string
		sec   StartSection
	}{
		{st[1], []string{PhaseActivityStart, PhaseActivityResume, PhaseFirstDoFrame}, wl.Startup.Warm.Sections[0]},
		{st[2], []string{PhaseActivityResume, PhaseFirstDoFrame}, wl.Startup.Hot.Sections[0]},
	} {
		var names []string
		at := tc.ts.StartNs
		for _, p := range tc.ts.Phases {
			names = append(names, p.Name)
			if p.StartNs < at || p.EndNs <= p.StartNs || p.EndNs > tc.ts.DisplayedNs {
				t.Errorf("%s: phase %+v out of order in [%d, %d)", tc.ts.Kind, p, tc.ts.StartNs, tc.ts.DisplayedNs)
			}
			at = p.EndNs
		}
		if !slices.Equal(names, tc.names) {
			t.Fatalf("%s: phases %v, want %v", tc.ts.Kind, names, tc.names)
		}
		p := tc.ts.Phases[0]
		if len(p.Sections) != 1 || p.Sections[0].Name != tc.sec.Name || p.Sections[0].DurNs != int64(tc.sec.Ms)*1e6 || p.IONs != int64(tc.sec.IOMs)*1e6 {
			t.Errorf("%s: %s sections %+v, io %d ns; the workload's %+v", tc.ts.Kind, p.Name, p.Sections, p.IONs, tc.sec)
		}
	}
	if d := st[1].Displayed; d != 900*time.Millisecond {
		t.Errorf("warm start %v", d)
	}
}

// Sections of warm and hot starts must have names a trace holds and fit
// in their share of the start.
func TestWarmStartValidate(t *testing.T) {
	for _, s := range []Startup{
		{ColdMs: 1000, WarmMs: 500, Warm: WarmStart{Sections: []StartSection{{Name: "a", Ms: 200}}}},
		{ColdMs: 1000, HotMs: 100, Hot: WarmStart{Sections: []StartSection{{Name: "a", Ms: 30}}}},
		{ColdMs: 1000, WarmMs: 500, Warm: WarmStart{Sections: []StartSection{{Name: "a|b", Ms: 10}}}},
		{ColdMs: 1000, WarmMs: 500, Warm: WarmStart{Sections: []StartSection{{Name: "a", Ms: 10, IOMs: 10}}}},
	} {
		if err := s.validateWarm(); err == nil {
			t.Errorf("%+v passed", s)
		}
	}
	ok := Startup{ColdMs: 1000, WarmMs: 500, HotMs: 100, Warm: WarmStart{Sections: []StartSection{{Name: "a", Ms: 199}}}, Hot: WarmStart{Sections: []StartSection{{Name: "b", Ms: 29}}}}
	if err := ok.validateWarm(); err != nil {
		t.Error(err)
	}
}
