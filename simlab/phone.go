package simlab

import (
	"errors"
	"fmt"
	"os"

	"github.com/perfgate/perfgate/simdevice"
)

// PhoneSpec describes one simulated phone as `perfgate simdevice` takes
// it, each field one of its flags; errors name the flags.
type PhoneSpec struct {
	API       int
	RefreshHz float64
	Serial    string
	// Workload is a built-in workload's name or a workload JSON file.
	Workload string
	// Replay is a `dumpsys gfxinfo <pkg> framestats` capture the phone
	// plays, of ReplayPackage's frames, at ReplaySpeed (1: real time).
	Replay        string
	ReplayPackage string
	ReplaySpeed   float64
	// NoiseSeed, FramePct and RunPct are the phone's simdevice.Noise.
	NoiseSeed        int64
	FramePct, RunPct float64
}

// Config checks s and returns the phone's configuration, its workload
// loaded and its replay capture read (its truth file still to open).
func (s PhoneSpec) Config() (simdevice.Config, error) {
	cfg := simdevice.Config{API: s.API, RefreshHz: s.RefreshHz, Serial: s.Serial}
	for _, n := range []struct {
		name string
		v    float64
	}{{"frame-noise", s.FramePct}, {"run-noise", s.RunPct}} {
		if !(n.v >= 0 && n.v <= simdevice.MaxNoisePct) {
			return cfg, fmt.Errorf("--%s %v: want 0 to %d percent", n.name, n.v, simdevice.MaxNoisePct)
		}
	}
	cfg.Noise = simdevice.Noise{Seed: s.NoiseSeed, FramePct: s.FramePct, RunPct: s.RunPct}
	switch {
	case s.NoiseSeed != 0 && s.FramePct == 0 && s.RunPct == 0:
		return cfg, errors.New("--noise-seed goes with --frame-noise or --run-noise")
	case s.Replay != "" && (s.FramePct != 0 || s.RunPct != 0):
		return cfg, errors.New("--frame-noise and --run-noise do not apply to --replay: it plays the capture's frames")
	case s.Replay == "" && (s.ReplayPackage != "" || s.ReplaySpeed != 1):
		return cfg, errors.New("--package and --replay-speed go with --replay")
	}
	if s.Replay != "" {
		if s.Workload != "" {
			return cfg, errors.New("--replay and --workload: give one")
		}
		b, err := os.ReadFile(s.Replay)
		if err != nil {
			return cfg, fmt.Errorf("--replay: %w", err)
		}
		cfg.Replay = &simdevice.Replay{Capture: b, Package: s.ReplayPackage, Speed: s.ReplaySpeed}
	}
	if s.Workload != "" {
		w, err := loadWorkload(s.Workload)
		if err != nil {
			return cfg, err
		}
		cfg.Workload = w
	}
	return cfg, nil
}

// loadWorkload takes a preset name, or a path to a workload file.
func loadWorkload(spec string) (*simdevice.Workload, error) {
	if _, err := os.Stat(spec); err == nil {
		w, err := simdevice.LoadWorkload(spec)
		if err != nil {
			return nil, fmt.Errorf("--workload: %w", err)
		}
		return w, nil
	}
	w, err := simdevice.Preset(spec)
	if err != nil {
		return nil, fmt.Errorf("--workload %q is neither a file nor a built-in workload: %w", spec, err)
	}
	return w, nil
}
