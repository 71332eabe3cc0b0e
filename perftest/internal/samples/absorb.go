package samples

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/perftest/internal/stepstats"
	"github.com/perfgate/perfgate/result"
)

// PIDs are the app's processes a tick planned as p found, answered out
// and run as cmds; false when the tick says nothing about them. pidof
// prints nothing and exits 1 when no process has the name; anything else
// that is not a success (no pidof: 127) says nothing about the app, which
// must not read as its death.
func (s *Source) PIDs(p Plan, cmds []string, out []adbx.Result) ([]int, bool) {
	if p.pidof < 0 {
		return nil, false
	}
	res := out[p.pidof]
	if !(res.ExitCode == 0 || res.ExitCode == 1 && len(bytes.TrimSpace(res.Stderr)) == 0 && len(bytes.TrimSpace(res.Stdout)) == 0) {
		s.env.Note("pids: %s; the app's processes are not tracked while it fails", devcmd.Failure(res, cmds[p.pidof]))
		return nil, false
	}
	// What is not a list of pids says nothing about the app either.
	pids, err := dumpsys.ParsePidof(res.Stdout)
	if err != nil {
		s.env.Note("pids: %v; the app's processes are not tracked while it fails", err)
		return nil, false
	}
	return pids, true
}

// Absorb fills the tick's sample smp (its PIDs already set) from the
// answers out of a tick planned as p, run as cmds, and logs how each read
// fared; uptimeNs is the device's clock read in the tick, 0 when unread.
func (s *Source) Absorb(p Plan, cmds []string, out []adbx.Result, smp *result.Sample, uptimeNs int64) {
	s.absorbCPU(p, cmds, out, smp)
	if p.status >= 0 {
		if res := out[p.status]; len(bytes.TrimSpace(res.Stdout)) == 0 && len(smp.PIDs) > 0 && res.ExitCode != 0 {
			s.env.Note("memory: %s", devcmd.Failure(res, cmds[p.status]))
		}
		smp.RSSKB = s.sumRSS(out[p.status].Stdout)
	}
	if p.net >= 0 {
		s.absorbTraffic(out[p.net], cmds[p.net], smp.HostNs, uptimeNs)
	}
	if p.thermal >= 0 {
		if out[p.thermal].ExitCode != 0 {
			s.env.Note("thermal: %s", devcmd.Failure(out[p.thermal], cmds[p.thermal]))
		} else if zones, err := dumpsys.ParseThermalZones(out[p.thermal].Stdout); err == nil {
			smp.ThermalC = thermalTemps(zones)
		}
	}
	if p.batt >= 0 {
		if out[p.batt].ExitCode != 0 {
			s.env.Note("battery: %s", devcmd.Failure(out[p.batt], cmds[p.batt]))
		} else if b, ok := parseBatteryUevent(out[p.batt].Stdout); ok {
			smp.Battery = &b
		}
	}
	r := s.env.Result
	if smp.CPU != nil && len(r.Samples) > 0 {
		if prev := r.Samples[len(r.Samples)-1]; prev.CPU != nil && stepstats.ProcsRead(prev) && stepstats.ProcsRead(*smp) {
			if total, _, err := procfs.CPUDelta(*prev.CPU, *smp.CPU); err == nil {
				app := procfs.CPUAppTicksBetween(prev.Procs, smp.Procs, stepstats.UptimeTicks(prev, r.Device.ClockTicks))
				s.lastCPUPct = float64(app) / float64(total) * 100
			}
		}
	}
	s.logTick(p, out, smp)
}

// absorbCPU reads the tick's CPU counters: the device's, the app's
// processes' and their threads'.
func (s *Source) absorbCPU(p Plan, cmds []string, out []adbx.Result, smp *result.Sample) {
	note := s.env.Note
	if p.stat >= 0 {
		if out[p.stat].ExitCode != 0 {
			note("cpu: %s", devcmd.Failure(out[p.stat], cmds[p.stat]))
		} else if ps, err := procfs.ParseStat(out[p.stat].Stdout); err != nil {
			note("cpu: %v", err)
		} else {
			cpu := ps.CPU
			smp.CPU = &cpu
			smp.OnlineCores = len(ps.Cores)
		}
	}
	if p.pidStat >= 0 {
		if res := out[p.pidStat]; len(bytes.TrimSpace(res.Stdout)) > 0 {
			if sts, err := procfs.ParsePidStats(res.Stdout); err != nil {
				note("cpu: %v", err)
			} else {
				smp.Procs = sts
			}
		} else if len(smp.PIDs) > 0 && res.ExitCode != 0 {
			note("cpu: %s", devcmd.Failure(res, cmds[p.pidStat]))
		}
	}
	if p.tasks >= 0 && len(bytes.TrimSpace(out[p.tasks].Stdout)) > 0 {
		if sts, err := procfs.ParsePidStats(out[p.tasks].Stdout); err != nil {
			note("cpu threads: %v", err)
		} else {
			smp.Threads = sts
		}
	}
}

// logTick records how each source of one cheap-lane tick fared. Per-process
// sources are not read while the app is not running; that is no failure.
func (s *Source) logTick(p Plan, out []adbx.Result, smp *result.Sample) {
	h, l := smp.HostNs, s.env.Log
	if p.stat >= 0 {
		l.Add(srcStat, h, readlog.ReadErr(smp.CPU != nil, out[p.stat], l.Noted("cpu: ")))
	}
	running := len(smp.PIDs) > 0
	if p.pidStat >= 0 && running {
		l.Add(srcProcs, h, readlog.ReadErr(len(smp.Procs) > 0, out[p.pidStat], l.Noted("cpu: ")))
	}
	if p.status >= 0 && running {
		l.Add(srcStatus, h, readlog.ReadErr(smp.RSSKB > 0, out[p.status], l.Noted("memory: ")))
	}
	if p.batt >= 0 {
		l.Add(srcBattery, h, readlog.ReadErr(smp.Battery != nil, out[p.batt], ""))
	}
}

func (s *Source) sumRSS(b []byte) int64 {
	var total int64
	for _, part := range splitBefore(b, "Name:") {
		st, err := procfs.ParseStatus(part)
		if err != nil {
			s.env.Note("memory: %v", err)
			continue
		}
		total += st.VmRSSKB
	}
	return total
}

// splitBefore cuts concatenated files at each line starting with prefix.
func splitBefore(b []byte, prefix string) [][]byte {
	var parts [][]byte
	start := -1
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		end := len(b)
		if j >= 0 {
			end = i + j + 1
		}
		if bytes.HasPrefix(b[i:end], []byte(prefix)) {
			if start >= 0 {
				parts = append(parts, b[start:i])
			}
			start = i
		}
		i = end
	}
	if start >= 0 {
		parts = append(parts, b[start:])
	}
	return parts
}

// absorbTraffic records one read of the traffic counters at host time
// hostNs; uptimeNs is the device's /proc/uptime read right before them in
// the same round trip, 0 when there was none.
func (s *Source) absorbTraffic(res adbx.Result, cmd string, hostNs, uptimeNs int64) {
	if res.ExitCode != 0 {
		// The app's pid is gone, or the file unreadable for a moment.
		s.env.Note("traffic: %s", devcmd.Failure(res, cmd))
		s.env.Log.Add(srcTraffic, hostNs, readlog.Short(res))
		return
	}
	tc, err := s.parseTraffic(res.Stdout)
	if err != nil {
		s.env.Note("traffic: %s: %v", cmd, err)
		s.env.Log.Add(srcTraffic, hostNs, err.Error())
		return
	}
	s.env.Log.Add(srcTraffic, hostNs, "")
	s.env.Result.Traffic = append(s.env.Result.Traffic, result.TrafficSample{
		HostNs: hostNs, UptimeNs: uptimeNs, RxBytes: tc.RxBytes, TxBytes: tc.TxBytes, RxPackets: tc.RxPackets, TxPackets: tc.TxPackets,
	})
}

// parseTraffic reads the counters of the traffic mode in use.
func (s *Source) parseTraffic(b []byte) (tc procfs.TrafficCounters, err error) {
	uid := s.cfg.UID
	switch s.found.Traffic {
	case TrafficQtaguid:
		var m map[int]*procfs.TrafficUID
		if m, err = procfs.ParseTrafficQtaguid(b); err == nil {
			// The probe saw the uid's row; a read without it is no count.
			if m[uid] == nil {
				err = fmt.Errorf("no tag 0x0 row for uid %d", uid)
			} else {
				tc = m[uid].Total
			}
		}
	case TrafficUIDStat:
		tc, err = parseUIDStat(b)
	case TrafficNetstats:
		var ns dumpsys.Netstats
		if ns, err = dumpsys.ParseNetstats(b); err == nil {
			var ok bool
			if tc, ok = ns.AppUIDStats[uid]; !ok {
				err = fmt.Errorf("no mAppUidStatsMap row for uid %d", uid)
			}
		}
	case TrafficNetDev:
		var m map[string]procfs.TrafficCounters
		if m, err = procfs.ParseTrafficNetDev(b); err == nil {
			tc = procfs.TrafficNetDevTotal(m)
		}
	}
	return tc, err
}

// parseUIDStat reads `cat tcp_rcv tcp_snd`: two byte counts, one a line.
func parseUIDStat(b []byte) (procfs.TrafficCounters, error) {
	f := strings.Fields(string(devtext.Normalize(b)))
	if len(f) != 2 {
		return procfs.TrafficCounters{}, fmt.Errorf("/proc/uid_stat/<uid>: want 2 counters, got %q", string(b))
	}
	rx, err := procfs.ParseTrafficUIDStat([]byte(f[0]))
	if err != nil {
		return procfs.TrafficCounters{}, err
	}
	tx, err := procfs.ParseTrafficUIDStat([]byte(f[1]))
	return procfs.TrafficCounters{RxBytes: rx, TxBytes: tx}, err
}

// qtaguidOK reports whether xt_qtaguid lists the uid (a device can keep the
// file while its counters stay empty).
func qtaguidOK(b []byte, uid int) bool {
	m, err := procfs.ParseTrafficQtaguid(b)
	return err == nil && m[uid] != nil
}

func netstatsHasUID(b []byte, uid int) bool {
	ns, err := dumpsys.ParseNetstats(b)
	if err != nil {
		return false
	}
	_, ok := ns.AppUIDStats[uid]
	return ok
}

// AbsorbSlow takes the slow lane's answers out of a round trip planned as
// p, sent at host time send and answered at recv; forSteps name the steps
// whose start called for the read (none for a read on the lane's own
// schedule).
func (s *Source) AbsorbSlow(p Slow, out []adbx.Result, send, recv int64, forSteps []string) {
	mid := send + (recv-send)/2
	if p.net >= 0 {
		s.absorbTraffic(out[p.net], p.Cmds[p.net], mid, 0)
	}
	if p.meminfo < 0 {
		return
	}
	if res := out[p.meminfo]; res.ExitCode != 0 {
		s.env.Note("memory: %s", devcmd.Failure(res, p.Cmds[p.meminfo]))
		return
	}
	m, err := dumpsys.ParseMeminfo(devcmd.Output(out[p.meminfo]))
	if err != nil {
		if !errors.Is(err, dumpsys.ErrMeminfoNoProcess) {
			s.env.Note("memory: %v", err)
		}
		s.env.Log.Add(srcMeminfo, mid, readlog.QuoteOutput(err, devcmd.Output(out[p.meminfo])))
		return
	}
	s.env.Log.Add(srcMeminfo, mid, "")
	ms := result.MemorySample{HostNs: mid, PSSKB: m.PSSKB, SwapKB: m.SwapKB, Steps: forSteps}
	if m.HasRSS {
		ms.RSSKB = m.RSSKB
	}
	ms.Summary = result.MeminfoSummary(m.Summary)
	if p.gpu >= 0 {
		ms.GPUKB = gpuKB(out[p.gpu], m.PID)
	}
	s.env.Result.Memory = append(s.env.Result.Memory, ms)
}

// thermalTemps maps each readable zone's type to °C; zones sharing a type
// keep the hottest.
func thermalTemps(zones []dumpsys.ThermalZone) map[string]float64 {
	m := map[string]float64{}
	for _, z := range zones {
		if !z.HasTemp {
			continue
		}
		name := z.Type
		if name == "" {
			name = "thermal_zone" + strconv.Itoa(z.ID)
		}
		if v, ok := m[name]; !ok || z.Celsius > v {
			m[name] = z.Celsius
		}
	}
	return m
}

// parseBatteryUevent reads the battery's uevent file; false when it does
// not parse.
func parseBatteryUevent(b []byte) (result.BatteryReading, bool) {
	st, err := dumpsys.ParseBatteryUevent(b)
	if err != nil {
		return result.BatteryReading{}, false
	}
	br := result.BatteryReading{LevelPct: st.LevelPct}
	if st.HasTemp {
		br.TemperatureC = st.TemperatureC
	} else {
		br.NoTemperature = true
	}
	if st.HasVoltage {
		br.VoltageMV = st.VoltageMV
	}
	if st.HasCurrent {
		br.CurrentMA = st.CurrentMA
	}
	return br, true
}

// GPUMemAPI is the first API level whose GpuService keeps each process's
// GPU memory (dumpsys gpu --gpumem, Android 12).
const GPUMemAPI = 31

// gpuKB is the GPU memory of process pid in a `dumpsys gpu --gpumem`
// read, in KiB; nil when the read gave no totals. A snapshot that does not
// list pid is 0: GpuMem lists every process holding GPU memory.
func gpuKB(res adbx.Result, pid int) *int64 {
	g, err := dumpsys.ParseGPUMem(devcmd.Output(res))
	if err != nil || pid <= 0 {
		return nil
	}
	b, _ := g.ProcessBytes(pid)
	kb := b / 1024
	return &kb
}
