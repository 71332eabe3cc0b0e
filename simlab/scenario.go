package simlab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// ScenarioPhone is the simulated phone a scenario file's "simulated" asks
// for (scenario.Simulated): workload is a preset's name (default
// smooth-scroll) or a workload JSON file, relative to dir, the scenario
// file's folder; api is the API level (0: simdevice's default); noise is
// a simdevice.Noise as the file has it, every key one it knows.
func ScenarioPhone(workload string, api int, noise []byte, dir string) (simdevice.Config, error) {
	wl, err := scenarioWorkload(workload, dir)
	if err != nil {
		return simdevice.Config{}, err
	}
	cfg := simdevice.Config{Workload: wl, API: api}
	if len(noise) > 0 {
		dec := json.NewDecoder(bytes.NewReader(noise))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg.Noise); err != nil {
			return cfg, fmt.Errorf("noise: %s", excerpt.Text(err.Error()))
		}
	}
	return cfg, nil
}

// scenarioWorkload is a preset name or a workload JSON file relative to
// the scenario file's folder.
func scenarioWorkload(name, dir string) (*simdevice.Workload, error) {
	if name == "" {
		name = "smooth-scroll"
	}
	if wl, err := simdevice.Preset(name); err == nil {
		return wl, nil
	}
	if !strings.HasSuffix(name, ".json") {
		return nil, fmt.Errorf("workload %s: no such preset (have %s) and not a .json file", excerpt.Quote(name), strings.Join(simdevice.PresetNames(), ", "))
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return simdevice.LoadWorkload(name)
}

// ScenarioServed is the simulated phone a scenario file asks for, served
// by a pure-Go adb server of its own.
type ScenarioServed struct {
	Phone    *simdevice.Device
	Server   *adbtest.Server
	Workload string // the workload's name
}

// ServeScenarioPhone starts the phone ScenarioPhone configures and serves
// it. Close stops both. The phone has its workload's app and no other,
// whatever package the scenario file measures (the last argument): a
// package it lacks is not installed there, as on a real phone, and the
// session fails saying so.
func ServeScenarioPhone(workload string, api int, noise []byte, dir, _ string) (*ScenarioServed, error) {
	cfg, err := ScenarioPhone(workload, api, noise, dir)
	if err != nil {
		return nil, err
	}
	phone, err := simdevice.New(cfg)
	if err != nil {
		return nil, err
	}
	return &ScenarioServed{Phone: phone, Server: adbtest.NewServer(phone), Workload: cfg.Workload.Name}, nil
}

// String describes the phone: "simulated SERIAL, API N, workload NAME".
func (s *ScenarioServed) String() string {
	return fmt.Sprintf("simulated %s, API %d, workload %s", s.Phone.Serial(), s.Phone.Config().API, s.Workload)
}

// Close stops the server, then the phone.
func (s *ScenarioServed) Close() {
	s.Server.Close()
	s.Phone.Close()
}

// ParseScenarioFile is scenario.ParseFile with the file's "simulated"
// phone checked too (ScenarioPhone), relative to the file's folder: a
// scenario file as perfgate run reads it.
func ParseScenarioFile(path string, b []byte) (*scenario.File, error) {
	return scenario.ParseFile(path, b, scenario.ParseOptions{CheckSimulated: func(s *scenario.Simulated, dir string) error {
		_, err := ScenarioPhone(s.Workload, s.API, s.Noise, dir)
		return err
	}})
}
