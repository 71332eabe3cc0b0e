// Package samples reads the app's and the device's counters tick by tick:
// CPU (/proc/stat, the app's /proc/<pid>/stat and its threads'), memory
// (VmRSS, and dumpsys meminfo in the slow lane), traffic, battery and
// thermal zones. It keeps how each read fared in the session's read log,
// and says why a step has no figure of its own.
//
//	src := samples.New(samples.Config{Package: "com.example.feed", UID: 10234, CPU: true, …}, env)
//	pr := src.PlanProbe(add) // the setup's round trip
//	src.AbsorbProbe(pr, cmds, out)
//	pl := src.Plan(add, pidof, ticks, clock) // each tick
//	src.Absorb(pl, cmds, out, &smp, uptimeNs)
//	src.Summarise(st, why, whyMetric)
//	src.Absent(st, why, whyMetric, notRunning)
package samples

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/result"
)

// Traffic modes, from the most to the least specific (DESIGN.md "Traffic").
const (
	TrafficQtaguid  = "/proc/net/xt_qtaguid/stats"
	TrafficUIDStat  = "/proc/uid_stat/<uid>/tcp_rcv,tcp_snd"
	TrafficNetstats = "dumpsys netstats"
	TrafficNetDev   = "/proc/<pid>/net/dev"
)

// Sources whose reads the source logs, so a metric without a value can
// say why (README "Unmeasured is never zero").
const (
	srcStat    = "cat /proc/stat"
	srcProcs   = "/proc/<pid>/stat"
	srcStatus  = "/proc/<pid>/status"
	srcTraffic = "traffic"
	srcBattery = "battery"
	srcMeminfo = "dumpsys meminfo"
)

const (
	batteryPath = "/sys/class/power_supply/battery/uevent"
	batteryCmd  = "cat " + batteryPath
	statCmd     = "cat /proc/stat"
)

// Config is what the source needs of the session's configuration.
type Config struct {
	Package string   // the app
	Names   []string // the app's process names, for pidof
	UID     int      // the app's uid
	// CPU, Memory, Traffic and Battery are the collectors on.
	CPU, Memory, Traffic, Battery bool
	// Interval and SlowInterval are the lanes' periods.
	Interval, SlowInterval time.Duration
}

// Env is what the source writes to: the session's Result (Samples,
// Traffic, Memory), its notes and its read log.
type Env struct {
	Result *result.Result
	Note   devcmd.Note
	Log    *readlog.Log
}

// Found is what the probe found readable.
type Found struct {
	CPU     bool   // /proc/stat
	Traffic string // one of the traffic modes, "" when off
	Battery bool
	Thermal bool
}

// Source reads the per-tick counters. Its methods run under the
// session's lock.
type Source struct {
	cfg   Config
	env   Env
	found Found
	// statWhy and batteryWhy say why the probe found /proc/stat or the
	// battery unreadable.
	statWhy, batteryWhy string
	lastCPUPct          float64
}

// New is a source that reads nothing before the probe.
func New(cfg Config, env Env) *Source { return &Source{cfg: cfg, env: env} }

// Use sets what the probe would have found readable.
func (s *Source) Use(f Found) { s.found = f }

// Found is what the probe found readable.
func (s *Source) Found() Found { return s.found }

// Probe is where the probe's reads sit in its round trip.
type Probe struct{ qt, uid, ns, bat, th, stat int }

// PlanProbe adds the reads that decide the sources to the setup's round
// trip, whose commands add appends: which traffic counters and battery
// files are readable, and whether /proc/stat is.
func (s *Source) PlanProbe(add func(string) int) Probe {
	p := Probe{-1, -1, -1, -1, -1, -1}
	if s.cfg.Traffic {
		p.qt = add("cat " + TrafficQtaguid)
		p.uid = add(s.uidStatCmd())
		p.ns = add("dumpsys netstats")
	}
	if s.cfg.Battery {
		p.bat = add(batteryCmd)
		p.th = add(dumpsys.ThermalZonesCommand)
	}
	if s.cfg.CPU {
		p.stat = add(statCmd)
	}
	return p
}

func (s *Source) uidStatCmd() string {
	return fmt.Sprintf("cat /proc/uid_stat/%d/tcp_rcv /proc/uid_stat/%d/tcp_snd", s.cfg.UID, s.cfg.UID)
}

// AbsorbProbe picks the sources from the probe's answers out, run as cmds.
func (s *Source) AbsorbProbe(p Probe, cmds []string, out []adbx.Result) {
	note, uid := s.env.Note, s.cfg.UID
	if p.qt >= 0 {
		switch {
		case out[p.qt].ExitCode == 0 && qtaguidOK(out[p.qt].Stdout, uid):
			s.found.Traffic = TrafficQtaguid
		case out[p.uid].ExitCode == 0:
			s.found.Traffic = TrafficUIDStat
		case out[p.ns].ExitCode == 0 && netstatsHasUID(out[p.ns].Stdout, uid):
			s.found.Traffic = TrafficNetstats
		default:
			s.found.Traffic = TrafficNetDev
			note("traffic: no per-UID counters readable (%s; %s; %s has no mAppUidStatsMap row for uid %d); reporting device-wide %s with scope \"device\"",
				devcmd.Failure(out[p.qt], "cat "+TrafficQtaguid), devcmd.Failure(out[p.uid], "cat /proc/uid_stat/<uid>"), TrafficNetstats, uid, TrafficNetDev)
		}
	}
	if p.bat >= 0 {
		s.found.Battery = out[p.bat].ExitCode == 0
		if !s.found.Battery {
			s.batteryWhy = devcmd.Failure(out[p.bat], cmds[p.bat])
			note("battery: %s; battery not collected", s.batteryWhy)
		}
		zones, err := dumpsys.ParseThermalZones(out[p.th].Stdout)
		s.found.Thermal = err == nil && len(thermalTemps(zones)) > 0
		if !s.found.Thermal {
			note("thermal: %s; no readable zone; thermal not collected", devcmd.Failure(out[p.th], dumpsys.ThermalZonesCommand))
		}
	}
	if p.stat >= 0 {
		s.found.CPU = out[p.stat].ExitCode == 0
		if !s.found.CPU {
			s.statWhy = readlog.Short(out[p.stat])
			note("cpu: %s; device CPU unavailable, app CPU %% is reported against wall time × cores", devcmd.Failure(out[p.stat], statCmd))
			if s.env.Result.Device.Cores <= 0 {
				note("cpu: the core count is unknown too; only the app's top-style per-core figure is computed")
			}
		}
	}
}

// Plan is where a tick's reads sit in its round trip (-1 for none).
type Plan struct{ pidof, stat, pidStat, status, tasks, net, batt, thermal int }

// Plan adds a tick's reads to its round trip, whose commands add appends:
// the app's processes (pidof), its counters and the device's. ticks counts
// the ticks absorbed; clock adds the tick's clock read, which goes right
// after the CPU counters.
func (s *Source) Plan(add func(string) int, ticks int, clock func()) Plan {
	p := Plan{-1, -1, -1, -1, -1, -1, -1, -1}
	names := make([]string, len(s.cfg.Names))
	for i, n := range s.cfg.Names {
		names[i] = adbx.Quote(n)
	}
	pidof := "pidof " + strings.Join(names, " ")
	p.pidof = add(pidof)
	// Each per-process read loops over the pids the device has NOW, so a
	// restarted app is read in the same tick that sees its new pid.
	each := func(format string) string {
		return "for p in $(" + pidof + "); do " + fmt.Sprintf(format, "$p") + "; done"
	}
	pkg := adbx.Quote(s.cfg.Package)
	// The clock is read right after the CPU counters, with nothing
	// between the app's counters, the device's and the clock: each
	// command the shell runs in between takes a few ms on a phone, more
	// on a busy one, and a clock read that far from the counters would
	// give each CPU interval a length that is not its own (10 % in a
	// 1.5 s step whose reads drifted 150 ms apart).
	if s.cfg.CPU {
		p.pidStat = add(each("cat /proc/%s/stat"))
		if s.found.CPU {
			p.stat = add(statCmd)
		}
	}
	clock()
	// The traffic counters right after the clock, for the same reason:
	// their rate divides by the device's time between two reads.
	switch s.found.Traffic {
	case TrafficQtaguid:
		p.net = add("cat " + TrafficQtaguid)
	case TrafficUIDStat:
		p.net = add(s.uidStatCmd())
	case TrafficNetDev:
		p.net = add("for p in $(pidof " + pkg + "); do cat /proc/$p/net/dev; done")
	}
	if s.cfg.CPU {
		p.tasks = add("for p in $(pidof " + pkg + "); do cat /proc/$p/task/*/stat; done")
	}
	if s.cfg.Memory {
		p.status = add(each("cat /proc/%s/status"))
	}
	// The battery changes slowly; reading it every tenth tick keeps ticks small.
	if s.found.Battery && ticks%10 == 0 {
		p.batt = add(batteryCmd)
	}
	if s.found.Thermal && ticks%10 == 0 {
		p.thermal = add(dumpsys.ThermalZonesCommand)
	}
	return p
}

// Slow is the slow lane's round trip: its commands and where each read
// sits in them.
type Slow struct {
	Cmds              []string
	meminfo, net, gpu int
}

// SlowPlan is the slow lane's commands: meminfo while the app runs
// (running), and netstats when that is the traffic source (both take tens
// of ms on a phone).
func (s *Source) SlowPlan(running bool) Slow {
	p := Slow{meminfo: -1, net: -1, gpu: -1}
	if s.cfg.Memory && running {
		p.meminfo = len(p.Cmds)
		p.Cmds = append(p.Cmds, "dumpsys meminfo "+adbx.Quote(s.cfg.Package))
		if s.env.Result.Device.API >= GPUMemAPI {
			p.gpu = len(p.Cmds)
			p.Cmds = append(p.Cmds, dumpsys.GPUMemSource)
		}
	}
	if s.found.Traffic == TrafficNetstats {
		p.net = len(p.Cmds)
		p.Cmds = append(p.Cmds, "dumpsys netstats")
	}
	return p
}

// SlowLaneNeeded reports whether the slow lane has anything to read.
func (s *Source) SlowLaneNeeded() bool {
	return s.cfg.Memory || s.found.Traffic == TrafficNetstats
}

// LiveCPU is the app's CPU % between the last two ticks.
func (s *Source) LiveCPU() float64 { return s.lastCPUPct }

// RunConfig adds what the Result's run configuration says of the sources
// the probe picked.
func (s *Source) RunConfig(rc *result.RunConfig) {
	rc.TrafficSource = s.found.Traffic
	rc.Sources["cpu"] = "cat /proc/stat; /proc/<pid>/stat; /proc/<pid>/task/*/stat (clock ticks)"
	rc.Sources["rss"] = "cat /proc/<pid>/status VmRSS (KiB)"
	rc.Sources["memory"] = "dumpsys meminfo <pkg> (KiB)"
	if s.found.Traffic != "" {
		rc.Sources["traffic"] = s.found.Traffic + " (bytes)"
	}
	if s.found.Battery {
		rc.Sources["battery"] = batteryCmd + " (%, °C, mV, mA)"
	}
	if s.found.Thermal {
		rc.Sources["thermal"] = dumpsys.ThermalZonesCommand + " (°C)"
	}
	rc.TrafficScope = s.trafficScope()
}

func (s *Source) trafficScope() string {
	switch s.found.Traffic {
	case TrafficQtaguid, TrafficUIDStat, TrafficNetstats:
		return "uid"
	case TrafficNetDev:
		return "device"
	}
	return ""
}

// Finish places the Result's samples, memory and traffic reads on the
// device clock (toDevice maps a host time), and gives it empty lists, not
// null, where nothing was read.
func Finish(r *result.Result, toDevice func(hostNs int64) int64) {
	for i := range r.Samples {
		r.Samples[i].DeviceNs = toDevice(r.Samples[i].HostNs)
	}
	for i := range r.Memory {
		r.Memory[i].DeviceNs = toDevice(r.Memory[i].HostNs)
	}
	for i := range r.Traffic {
		r.Traffic[i].DeviceNs = toDevice(r.Traffic[i].HostNs)
	}
	if r.Samples == nil {
		r.Samples = []result.Sample{}
	}
	if r.Memory == nil {
		r.Memory = []result.MemorySample{}
	}
	if r.Traffic == nil {
		r.Traffic = []result.TrafficSample{}
	}
}

// NotCollected is the reason for a family whose collector kind is off.
func NotCollected(kind string) string {
	return fmt.Sprintf("%s: not collected (Config.Collectors has no %q)", kind, kind)
}
