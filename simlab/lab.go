// Package simlab describes and starts a lab of simulated phones: several
// models, API levels and speeds, served by several adb servers (adbtest's
// pure-Go server, and the stock adb server joined with `adb connect`), for
// tests of a device pool and for trying one out (`perfgate simdevice
// -count 8` or `-lab lab.json`).
//
//	lab, err := simlab.Read("lab.json") // or simlab.Spread(8)
//	l := simlab.Start(t, lab)           // in a test; Serve outside one
//	p, err := devicepool.New(ctx, devicepool.Config{Servers: l.Servers()})
//
// A lab file lists phones; each field has the default of simdevice.Config:
//
//	{"phones": [
//	  {"model": "Pixel 8", "api": 34, "refresh_hz": 120, "server": "go"},
//	  {"model": "Pixel 4a", "api": 30, "speed": 0.5, "server": "adb", "count": 2,
//	   "quirks": {"online_cores": 4, "log_history": true},
//	   "frame_quirks": {"in_flight": true, "flagged_every": 7}}
//	]}
//
// Speed is how fast the phone is against a flagship (1): a phone of speed
// 0.5 takes twice as long over every frame, CPU tick and launch of its
// workload, so low-end phones jank where flagships do not.
package simlab

import (
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/jsondup"
	"github.com/perfgate/perfgate/simdevice"
)

// The servers a phone can be served by (Phone.Server).
const (
	ServerGo  = "go"  // adbtest's pure-Go adb server
	ServerADB = "adb" // the stock adb server, which joins the phone with adb connect
)

// A Phone is one simulated phone of a lab (or Count of them).
type Phone struct {
	// Serial is the serial adb lists; default "sim-<n>", n counting the
	// lab's phones from 1.
	Serial string `json:"serial,omitempty"`
	// Model is ro.product.model; default the API level's phone.
	Model string `json:"model,omitempty"`
	// API is the Android API level (28, 30, 33, 34); default 33.
	API int `json:"api,omitempty"`
	// RefreshHz is the display's refresh rate; default the workload's.
	RefreshHz float64 `json:"refresh_hz,omitempty"`
	// Workload is a built-in workload's name; default "janky-scroll".
	Workload string `json:"workload,omitempty"`
	// Speed is the phone's speed against a flagship (1, the default),
	// 0.25 to 4.
	Speed float64 `json:"speed,omitempty"`
	// Server is ServerGo (the default) or ServerADB.
	Server string `json:"server,omitempty"`
	// Count makes this many phones of this kind (default 1); their
	// serials get "-1", "-2", … when Serial is set.
	Count int `json:"count,omitempty"`
	// Quirks switch on behaviours of real phones (simdevice.Quirks), and
	// FrameQuirks the hostile frame rows (simdevice.FrameQuirks).
	Quirks      *Quirks                `json:"quirks,omitempty"`
	FrameQuirks *simdevice.FrameQuirks `json:"frame_quirks,omitempty"`
}

// Quirks are simdevice.Quirks as a lab file writes them.
type Quirks struct {
	MissingCommands    []string `json:"missing_commands,omitempty"`
	MissingFiles       []string `json:"missing_files,omitempty"`
	LogHistory         bool     `json:"log_history,omitempty"`
	OnlineCores        int      `json:"online_cores,omitempty"`
	DeniedServices     []string `json:"denied_services,omitempty"`
	MissingDataSources []string `json:"missing_data_sources,omitempty"`
}

// device is the simdevice.Quirks q describes.
func (q *Quirks) device() simdevice.Quirks {
	if q == nil {
		return simdevice.Quirks{}
	}
	return simdevice.Quirks{MissingCommands: q.MissingCommands, MissingFiles: q.MissingFiles, LogHistory: q.LogHistory,
		OnlineCores: q.OnlineCores, DeniedServices: q.DeniedServices, MissingDataSources: q.MissingDataSources}
}

// A Lab is a list of phones.
type Lab struct {
	Phones []Phone `json:"phones"`
}

// DefaultWorkload is the workload a lab phone runs when it names none.
const DefaultWorkload = "janky-scroll"

// spread is the kinds of phone Spread cycles through: the four simulated
// API levels' phones, two of them slow, at the refresh rates they ship
// with, the older ones with the quirks of real phones of their age: a log
// full of other apps' crashes, parked cores, no nproc.
var spread = []Phone{
	{Model: "Pixel 8", API: 34, RefreshHz: 120, Speed: 1},
	{Model: "Pixel 4a", API: 30, RefreshHz: 60, Speed: 0.6, Quirks: &Quirks{OnlineCores: 4, LogHistory: true}},
	{Model: "Pixel 7", API: 33, RefreshHz: 90, Speed: 1},
	{Model: "Pixel 3", API: 28, RefreshHz: 60, Speed: 0.5, Quirks: &Quirks{MissingCommands: []string{"nproc"}, LogHistory: true}},
}

// Spread is a lab of n phones of the four simulated models in turn, every
// other one on the stock adb server: a spread of models, API levels,
// speeds and servers for a pool to run over.
func Spread(n int) Lab {
	var l Lab
	for i := range n {
		p := spread[i%len(spread)]
		p.Server = ServerGo
		if i%2 == 1 {
			p.Server = ServerADB
		}
		l.Phones = append(l.Phones, p)
	}
	return l
}

// Read reads a lab file (see Parse).
func Read(path string) (Lab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Lab{}, fmt.Errorf("simlab: %w", err)
	}
	return Parse(path, b)
}

// maxPhones bounds a lab: each phone is a simulation running in this
// process.
const maxPhones = 64

// Parse reads a lab file's bytes; name names it in errors, which quote a
// bounded excerpt of the offending text. A key given twice is an error.
func Parse(name string, b []byte) (Lab, error) {
	var l Lab
	if err := jsondup.Decode(name, b, &l); err != nil {
		return Lab{}, fmt.Errorf("simlab: %w", err)
	}
	if err := l.Validate(); err != nil {
		return Lab{}, fmt.Errorf("simlab: %s: %w", name, err)
	}
	return l, nil
}

// Validate checks every phone: a known workload, a speed in range, a known
// server, a count that keeps the lab within 64 phones, distinct serials,
// and a configuration simdevice accepts.
func (l Lab) Validate() error {
	if len(l.Phones) == 0 {
		return fmt.Errorf("no phones")
	}
	total := 0
	for i, p := range l.Phones {
		if p.Count < 0 || p.Count > maxPhones {
			return fmt.Errorf("phone %d: count %d out of range 1..%d", i+1, p.Count, maxPhones)
		}
		total += max(p.Count, 1)
	}
	if total > maxPhones {
		return fmt.Errorf("%d phones; a lab has at most %d", total, maxPhones)
	}
	_, err := l.Configs()
	return err
}

// A Config is one phone of a lab, ready to build: the simdevice.Config and
// the server that serves it.
type Config struct {
	Device simdevice.Config
	Server string
	Speed  float64
}

// Configs expands the lab into one Config a phone, counts unrolled and
// defaults filled, or an error naming the phone.
func (l Lab) Configs() ([]Config, error) {
	var out []Config
	seen := map[string]int{}
	for i, p := range l.Phones {
		where := fmt.Sprintf("phone %d", i+1)
		if p.Server == "" {
			p.Server = ServerGo
		}
		if p.Server != ServerGo && p.Server != ServerADB {
			return nil, fmt.Errorf("%s: server %s: want %q or %q", where, excerpt.Quote(p.Server), ServerGo, ServerADB)
		}
		if p.Speed == 0 {
			p.Speed = 1
		}
		if p.Speed < 0.25 || p.Speed > 4 || math.IsNaN(p.Speed) {
			return nil, fmt.Errorf("%s: speed %g out of range 0.25..4", where, p.Speed)
		}
		if p.Workload == "" {
			p.Workload = DefaultWorkload
		}
		if p.API != 0 && !slices.Contains(simdevice.APILevels(), p.API) {
			return nil, fmt.Errorf("%s: API %d is not simulated (want one of %v)", where, p.API, simdevice.APILevels())
		}
		if p.RefreshHz < 0 || p.RefreshHz > 1000 || math.IsNaN(p.RefreshHz) {
			return nil, fmt.Errorf("%s: refresh_hz %g out of range", where, p.RefreshHz)
		}
		for _, r := range p.Serial {
			if r < 0x21 || r > 0x7e {
				return nil, fmt.Errorf("%s: serial %s has a character adb cannot list", where, excerpt.Quote(p.Serial))
			}
		}
		n := max(p.Count, 1)
		for k := range n {
			serial := p.Serial
			switch {
			case serial == "":
				serial = fmt.Sprintf("sim-%d", len(out)+1)
			case n > 1:
				serial = fmt.Sprintf("%s-%d", serial, k+1)
			}
			if j, dup := seen[serial]; dup {
				return nil, fmt.Errorf("%s: serial %s already taken by phone %d", where, excerpt.Quote(serial), j)
			}
			seen[serial] = i + 1
			wl, err := simdevice.Preset(p.Workload)
			if err != nil {
				return nil, fmt.Errorf("%s: workload %s: %w", where, excerpt.Quote(p.Workload), err)
			}
			if p.FrameQuirks != nil {
				wl.FrameQuirks = *p.FrameQuirks
			}
			if err := p.Quirks.device().Validate(); err != nil {
				return nil, fmt.Errorf("%s: quirks: %w", where, err)
			}
			if n := p.Quirks.device().OnlineCores; n < 0 || n > simdevice.DefaultCores {
				return nil, fmt.Errorf("%s: quirks: online_cores %d out of range 0..%d", where, n, simdevice.DefaultCores)
			}
			cfg := simdevice.Config{Serial: serial, Model: p.Model, API: p.API, RefreshHz: p.RefreshHz, Workload: wl, Quirks: p.Quirks.device()}
			slow(wl, p.Speed, cfg.RefreshHz)
			if err := wl.Validate(); err != nil {
				return nil, fmt.Errorf("%s: speed %g: %w", where, p.Speed, err)
			}
			out = append(out, Config{Device: cfg, Server: p.Server, Speed: p.Speed})
		}
	}
	return out, nil
}

// slow scales a workload to a phone of the given speed: frames take 1/speed
// as long (a slow frame spans that many more vsyncs), threads use 1/speed
// as much CPU (at most a core), launches take 1/speed as long.
func slow(wl *simdevice.Workload, speed, hz float64) {
	if speed == 1 {
		return
	}
	if hz == 0 {
		hz = wl.RefreshHz
	}
	if hz == 0 {
		hz = 60
	}
	period := 1000 / hz
	scale := func(v int) int { return int(math.Round(float64(v) / speed)) }
	wl.Startup.ColdMs = scale(wl.Startup.ColdMs)
	wl.Startup.WarmMs = scale(wl.Startup.WarmMs)
	wl.Startup.HotMs = scale(wl.Startup.HotMs)
	wl.Startup.FullyDrawnMs = scale(wl.Startup.FullyDrawnMs)
	for i := range wl.Phases {
		ph := &wl.Phases[i]
		if ph.EveryVsyncs > 0 {
			ms := ph.FrameMs
			if ms == 0 {
				ms = 0.45 * period
			}
			ph.FrameMs = ms / speed
		}
		for j := range ph.Janks {
			jk := &ph.Janks[j]
			if jk.Vsyncs > 0 {
				jk.Vsyncs = max(1, scale(jk.Vsyncs))
			}
			jk.Ms /= speed
		}
		for j := range ph.CPU {
			ph.CPU[j].Percent = math.Min(100, ph.CPU[j].Percent/speed)
		}
	}
}
