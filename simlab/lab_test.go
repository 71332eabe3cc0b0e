package simlab_test

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/simlab"
)

func TestParse(t *testing.T) {
	l, err := simlab.Parse("lab.json", []byte(`{"phones": [
  {"model": "Pixel 8", "api": 34, "refresh_hz": 120},
  {"serial": "low", "model": "Pixel 4a", "api": 30, "speed": 0.5, "server": "adb", "count": 2,
   "quirks": {"online_cores": 4, "log_history": true, "missing_commands": ["nproc"]}, "frame_quirks": {"in_flight": true}}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := l.Configs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfgs {
		got = append(got, c.Device.Serial+"/"+c.Server)
	}
	if strings.Join(got, ",") != "sim-1/go,low-1/adb,low-2/adb" {
		t.Errorf("phones %v", got)
	}
	if q := cfgs[2].Device.Quirks; q.OnlineCores != 4 || !q.LogHistory || len(q.MissingCommands) != 1 || !cfgs[2].Device.Workload.FrameQuirks.InFlight || cfgs[0].Device.Quirks.LogHistory {
		t.Errorf("quirks %+v, frame quirks %+v", q, cfgs[2].Device.Workload.FrameQuirks)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"phones": []}`, "no phones"},
		{`{"phones": [{"speed": 10}]}`, "phone 1: speed 10 out of range"},
		{`{"phones": [{"server": "usb"}]}`, `phone 1: server "usb"`},
		{`{"phones": [{"api": 29}]}`, "phone 1: API 29 is not simulated"},
		{`{"phones": [{"workload": "nope"}]}`, `workload "nope"`},
		{`{"phones": [{"count": 65}]}`, "count 65"},
		{`{"phones": [{"serial": "a"}, {"serial": "a"}]}`, `phone 2: serial "a" already taken by phone 1`},
		{`{"phones": [{"modle": "x"}]}`, `unknown field "modle"`},
		{`{"phones": [{"quirks": {"missing_commands": ["sh"]}}]}`, "phone 1: quirks: simdevice: config: Quirks.MissingCommands: the shell itself cannot be missing"},
		{`{"phones": [{"quirks": {"online_cores": 9}}]}`, "phone 1: quirks: online_cores 9 out of range 0..8"},
		{`{"phones": [{"frame_quirks": {"late_every": -1}}]}`, "phone 1"},
		{`{"phones": [{"quirks": {"log_histroy": true}}]}`, `unknown field "log_histroy"`},
		{`{"phones": [], "phones": []}`, `duplicate key "phones"`},
		{"{\n\"phones\": [,]}", "lab.json:2: bad JSON"},
	} {
		_, err := simlab.Parse("lab.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "lab.json") {
			t.Errorf("%s: %v, want an error naming lab.json and %s", tc.in, err, tc.want)
		}
	}
}

// TestSpeed: a phone of speed 0.5 takes twice as long over its frames,
// its slow frames and its launches, and its threads use twice the CPU.
func TestSpeed(t *testing.T) {
	lab := simlab.Lab{Phones: []simlab.Phone{{RefreshHz: 60}, {RefreshHz: 60, Speed: 0.5}}}
	cfgs, err := lab.Configs()
	if err != nil {
		t.Fatal(err)
	}
	fast, slow := cfgs[0].Device.Workload, cfgs[1].Device.Workload
	fp, sp := fast.Phases[0], slow.Phases[0]
	if fp.FrameMs != 0 || math.Abs(sp.FrameMs-0.45*1000/60*2) > 1e-9 {
		t.Errorf("frame ms %g → %g", fp.FrameMs, sp.FrameMs)
	}
	if fp.Janks[0].Vsyncs*2 != sp.Janks[0].Vsyncs || fp.CPU[0].Percent*2 != sp.CPU[0].Percent || fast.Startup.ColdMs*2 != slow.Startup.ColdMs {
		t.Errorf("slow phone: janks %+v cpu %+v cold %d; fast: %+v %+v %d", sp.Janks, sp.CPU, slow.Startup.ColdMs, fp.Janks, fp.CPU, fast.Startup.ColdMs)
	}
}

func TestSpread(t *testing.T) {
	cfgs, err := simlab.Spread(8).Configs()
	if err != nil {
		t.Fatal(err)
	}
	models, servers := map[string]int{}, map[string]int{}
	for _, c := range cfgs {
		models[c.Device.Model]++
		servers[c.Server]++
	}
	if len(cfgs) != 8 || len(models) != 4 || servers[simlab.ServerGo] != 4 || servers[simlab.ServerADB] != 4 {
		t.Errorf("spread of 8: models %v servers %v", models, servers)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"phones": [{"model": "Pixel 8", "api": 34, "speed": 0.5, "server": "adb", "count": 2}]}`))
	f.Add([]byte(`{"phones": [{"serial": "a"}, {"serial": "a"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := simlab.Parse("lab.json", b)
		if err != nil {
			if len(err.Error()) > 600 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
			return
		}
		cfgs, err := l.Configs()
		if err != nil || len(cfgs) == 0 || len(cfgs) > 64 {
			t.Errorf("accepted a lab of %d phones: %v", len(cfgs), err)
		}
	})
}
