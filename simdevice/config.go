package simdevice

import (
	"fmt"
	"io"
	"maps"
	"slices"
)

// Config describes one simulated phone. The zero value is a usable API 33
// phone running the "smooth-scroll" preset at 60 Hz.
type Config struct {
	// Serial is the serial number adb lists. Default "perfgate-sim".
	Serial string
	// API is the Android API level whose output formats the device speaks:
	// 28, 30, 33 or 34. Default 33.
	API int
	// Model is ro.product.model. Default: a real model of that API's era.
	Model string
	// RefreshHz is the display refresh rate. Default: the workload's, else 60.
	RefreshHz float64
	// Cores is the number of CPU cores. Default 8.
	Cores int
	// Workload is the app installed on the device and how it behaves.
	// Default: the "smooth-scroll" preset.
	Workload *Workload
	// Truth, when set, receives every frame the app renders as one JSON
	// object a line (see TruthFrame), flushed at least once a second.
	Truth io.Writer
	// Root makes the shell run as root (uid 0), as on userdebug builds.
	Root bool
	// Replay, when set, makes the device play a real gfxinfo capture; its
	// app replaces Workload.
	Replay *Replay
	// Quirks switch on behaviours of real phones that a tidy device lacks.
	Quirks Quirks
	// Noise makes frame work, CPU loads, memory and launch times vary from
	// run to run and from sample to sample, as a real phone's do; the zero
	// value is none. It does not apply to a Replay, whose frames are a
	// capture's.
	Noise Noise
}

// Default values New fills into a zero Config.
const (
	DefaultSerial = "perfgate-sim"
	DefaultAPI    = 33
	DefaultCores  = 8
)

// online is how many cores are online (Quirks.OnlineCores).
func (cfg Config) online() int {
	if n := cfg.Quirks.OnlineCores; n > 0 && n < cfg.Cores {
		return n
	}
	return cfg.Cores
}

// product is the identity a real phone of one API level's era reports in
// its adbd banner (ro.product.name, ro.product.model, ro.product.device).
type product struct {
	name, model, device string
	kernel              string // uname -r
	kernelBuild         string // uname -v
}

// products maps each supported API level to a phone that shipped with it.
var products = map[int]product{
	28: {"blueline", "Pixel 3", "blueline", "4.9.223-g7c3b2a4ae1a0-ab6585357", "#1 SMP PREEMPT Thu Jun 11 06:21:19 UTC 2020"},
	30: {"sunfish", "Pixel 4a", "sunfish", "4.14.199-g4a3b2f1c9d7e-ab7036211", "#1 SMP PREEMPT Fri Jan 8 02:14:41 UTC 2021"},
	33: {"panther", "Pixel 7", "panther", "5.10.149-android13-4-00003-g05231a35ff43-ab9850788", "#1 SMP PREEMPT Mon Feb 13 19:33:33 UTC 2023"},
	34: {"shiba", "Pixel 8", "shiba", "5.15.110-android14-11-g7c5b7a0b4b4d-ab10804314", "#1 SMP PREEMPT Tue Sep 12 17:58:53 UTC 2023"},
}

// withDefaults returns cfg with the zero fields New owns filled in, or an
// error naming the field that cannot be simulated.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Serial == "" {
		cfg.Serial = DefaultSerial
	}
	if cfg.API == 0 {
		cfg.API = DefaultAPI
	}
	p, ok := products[cfg.API]
	if !ok {
		return cfg, fmt.Errorf("simdevice: config: API %d is not simulated (want 28, 30, 33 or 34)", cfg.API)
	}
	if cfg.Model == "" {
		cfg.Model = p.model
	}
	if cfg.Cores == 0 {
		cfg.Cores = DefaultCores
	}
	if cfg.Cores < 0 || cfg.Cores > 256 {
		return cfg, fmt.Errorf("simdevice: config: Cores %d out of range 1..256", cfg.Cores)
	}
	if cfg.RefreshHz < 0 || cfg.RefreshHz > 1000 {
		return cfg, fmt.Errorf("simdevice: config: RefreshHz %g out of range", cfg.RefreshHz)
	}
	if n := cfg.Quirks.OnlineCores; n < 0 || n > cfg.Cores {
		return cfg, fmt.Errorf("simdevice: config: Quirks.OnlineCores %d out of range 0..%d", n, cfg.Cores)
	}
	if err := cfg.Quirks.validate(); err != nil {
		return cfg, err
	}
	if err := cfg.Noise.validate(); err != nil {
		return cfg, err
	}
	if cfg.Noise.enabled() && cfg.Replay != nil {
		return cfg, fmt.Errorf("simdevice: config: Noise %+v with a Replay: a replay plays its capture's frames as they were", cfg.Noise)
	}
	for _, r := range cfg.Serial {
		// adb's host protocol separates serials and fields with whitespace.
		if r < 0x21 || r > 0x7e {
			return cfg, fmt.Errorf("simdevice: config: Serial %q has a character adb cannot list", cfg.Serial)
		}
	}
	return cfg, nil
}

// APILevels lists the API levels a simulated phone can speak, lowest first.
func APILevels() []int {
	return slices.Sorted(maps.Keys(products))
}
