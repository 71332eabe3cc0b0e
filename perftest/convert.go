package perftest

import "github.com/perfgate/perfgate/metrics"

func cpuTicksOf(c metrics.CPUTimes) *CPUTicks {
	return &CPUTicks{User: c.User, Nice: c.Nice, System: c.System, Idle: c.Idle,
		IOWait: c.IOWait, IRQ: c.IRQ, SoftIRQ: c.SoftIRQ, Steal: c.Steal}
}

func (c *CPUTicks) times() metrics.CPUTimes {
	return metrics.CPUTimes{User: c.User, Nice: c.Nice, System: c.System, Idle: c.Idle,
		IOWait: c.IOWait, IRQ: c.IRQ, SoftIRQ: c.SoftIRQ, Steal: c.Steal}
}

func procTicksOf(ps []metrics.ProcPidStat) []ProcTicks {
	out := make([]ProcTicks, len(ps))
	for i, p := range ps {
		out[i] = ProcTicks{PID: p.PID, Name: p.Comm, StartTime: p.StartTime, UTime: p.UTime, STime: p.STime}
	}
	return out
}

func pidStats(ps []ProcTicks) []metrics.ProcPidStat {
	out := make([]metrics.ProcPidStat, len(ps))
	for i, p := range ps {
		out[i] = metrics.ProcPidStat{PID: p.PID, Comm: p.Name, StartTime: p.StartTime, UTime: p.UTime, STime: p.STime}
	}
	return out
}
