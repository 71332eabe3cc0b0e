// Package refbench measures perfgate against an independent reference (a
// script reading the same file) in the same benchmark, shape by shape, so
// that machine load touches both alike and the ratio, not an absolute
// time, is the figure. It is for benchmarks.
package refbench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Run is one shape's times: the reference's and perfgate's, wall and CPU,
// one a reading.
type Run struct {
	Name string
	// MB is the shape's size; when it is not 0, Report gives times per MB.
	MB                        float64
	Ref, RefCPU, Ours, OurCPU []time.Duration
}

// Reference runs the reference cmd and keeps its wall and CPU time; it
// returns what cmd printed on its standard output.
func (r *Run) Reference(cmd *exec.Cmd) ([]byte, error) {
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v\n%s", err, errOut.Bytes())
	}
	r.Ref = append(r.Ref, time.Since(t0))
	r.RefCPU = append(r.RefCPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	return out.Bytes(), nil
}

// Time runs perfgate's reading, fn, and keeps its wall and CPU time (the
// process's, so nothing else should run in it meanwhile).
func (r *Run) Time(fn func() error) error {
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t0 := time.Now()
	err := fn()
	r.Ours = append(r.Ours, time.Since(t0))
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := func(ru syscall.Rusage) time.Duration { return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()) }
	r.OurCPU = append(r.OurCPU, cpu(ru1)-cpu(ru0))
	return err
}

// Median is the median of d (the upper one of an even count).
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// Report logs every shape's figures and reports: the slowest, median and
// fastest shape's time (s, or s/MB), the slowest over the fastest in wall
// and in CPU time, the slowest shape's speed-up over the reference, and
// the least and the median speed-up in wall time (x-ref) and in CPU time
// (x-ref-cpu). The CPU figures hold on a machine busy with other work,
// where wall times wander.
func Report(b *testing.B, runs []*Run) {
	b.Helper()
	var times, cpus, ratios, cpuRatios []float64
	slowest, slowestX := "", 0.0
	unit := "s"
	for _, r := range runs {
		ours, ref := Median(r.Ours), Median(r.Ref)
		ourCPU, refCPU := Median(r.OurCPU), Median(r.RefCPU)
		x, xc := ref.Seconds()/ours.Seconds(), refCPU.Seconds()/ourCPU.Seconds()
		t, c := ours.Seconds(), ourCPU.Seconds()
		if r.MB > 0 {
			unit = "s/MB"
			t, c = t/r.MB, c/r.MB
			b.Logf("%-20s perfgate %6.3f s (cpu %6.3f s, %5.1f MB/s), reference %6.2f s (cpu %6.2f s): %5.1f× wall, %5.1f× cpu",
				r.Name, ours.Seconds(), ourCPU.Seconds(), r.MB/ourCPU.Seconds(), ref.Seconds(), refCPU.Seconds(), x, xc)
		} else {
			b.Logf("%-16s perfgate %6.3f s (cpu %6.3f s), reference %6.2f s (cpu %6.2f s): %5.1f× wall, %5.1f× cpu",
				r.Name, ours.Seconds(), ourCPU.Seconds(), ref.Seconds(), refCPU.Seconds(), x, xc)
		}
		if len(times) == 0 || t > slices.Max(times) {
			slowest, slowestX = r.Name, x
		}
		times = append(times, t)
		cpus = append(cpus, c)
		ratios = append(ratios, x)
		cpuRatios = append(cpuRatios, xc)
	}
	b.Logf("slowest shape %s: %.1f× the reference", slowest, slowestX)
	for _, s := range [][]float64{times, cpus, ratios, cpuRatios} {
		slices.Sort(s)
	}
	mid := len(times) / 2
	b.ReportMetric(times[len(times)-1], "slowest-"+unit)
	b.ReportMetric(times[mid], "median-"+unit)
	b.ReportMetric(times[0], "fastest-"+unit)
	b.ReportMetric(times[len(times)-1]/times[0], "slowest/fastest")
	b.ReportMetric(cpus[len(cpus)-1]/cpus[0], "slowest/fastest-cpu")
	b.ReportMetric(slowestX, "slowest-x-ref")
	b.ReportMetric(ratios[0], "min-x-ref")
	b.ReportMetric(ratios[mid], "median-x-ref")
	b.ReportMetric(cpuRatios[0], "min-x-ref-cpu")
	b.ReportMetric(cpuRatios[mid], "median-x-ref-cpu")
}

// PeakRSS resets the process's peak resident set (Linux: clear_refs 5)
// and returns a function reading it back in MB, or nil where it cannot.
func PeakRSS() func() float64 {
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		return nil
	}
	return func() float64 {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return 0
		}
		for _, ln := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(ln, []byte("VmHWM:")); ok {
				kb, _ := strconv.ParseFloat(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 64)
				return kb / 1024
			}
		}
		return 0
	}
}
