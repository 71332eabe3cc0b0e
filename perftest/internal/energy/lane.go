// Package energy is a session's energy lane: the battery's current and
// voltage read on a lane of their own, faster than meminfo's, and the
// phone's power monitors where it has them; per step, the charge and
// energy drawn from the battery (the current's sign convention detected,
// never guessed) and the energy through each group of power rails. It
// can tell BatteryService the phone is unplugged for the session
// (`dumpsys battery unplug`), and resets it at Stop, or at a later
// session's start when this one died.
//
//	l := energy.Start(ctx, opts, energy.Env{On: true, Batch: batch, Now: now})
//	l.Kick()              // a step began or ended: read now
//	l.Stop()              // the last read; the battery reset
//	l.Summarise(st, r, note)
package energy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
)

// Options are the energy lane's settings; the zero value reads every
// 250 ms and leaves the battery's plugged state alone.
type Options struct {
	// Interval between the lane's reads of current_now and voltage_now:
	// one `cat` of three sysfs files, a few ms of a core. Default 250 ms.
	// The power monitors are read every fourth read and at each step's
	// edges.
	Interval time.Duration
	// UnplugBattery runs `dumpsys battery unplug` when the session starts
	// and `dumpsys battery reset` when it stops (Stop, an interrupt; a
	// session killed outright is reset by the next session on the phone
	// once its mark is LeftoverGrace old). BatteryService and the apps
	// then see the phone on its battery; a charger still charges it, as
	// the kernel's status shows, and the energy figures stay absent.
	UnplugBattery bool
}

// DefaultInterval is the lane's period when Options.Interval is 0, and
// MinInterval the shortest it takes: each read is a shell command on the
// phone, whose load a faster lane would add to the app's.
const (
	DefaultInterval = 250 * time.Millisecond
	MinInterval     = 50 * time.Millisecond
)

// railsEvery is how many battery reads go by between two reads of the
// power monitors (their dumpsys reads every counter of the HAL: tens of
// ms on a phone), besides those at each step's edges.
const railsEvery = 4

// Env is what the lane needs of its session.
type Env struct {
	On      bool          // the battery collector is on
	Batch   devcmd.Batch  // reaches the phone
	Now     func() int64  // host ns since the session's start
	Timeout time.Duration // bounds one read's round trip
}

// Sources, as the Result names them.
const (
	sysfsCmd    = "cat /sys/class/power_supply/battery/current_now /sys/class/power_supply/battery/voltage_now /sys/class/power_supply/battery/status"
	sysfsSource = "/sys/class/power_supply/battery current_now (µA), voltage_now (µV), status"
	dumpsysCmd  = "dumpsys battery"
	dumpsysSrc  = "dumpsys battery current now (mA), voltage (mV), status"
)

// Lane is a session's energy lane. Its methods are safe for concurrent
// use, and do nothing on a nil Lane (the battery collector off).
type Lane struct {
	opt Options
	env Env
	cmd string // the read: sysfsCmd or dumpsysCmd; "" when off
	why string // why the battery figures are absent throughout
	// railsWhy is why the power monitors are not read ("" when they are).
	railsWhy string

	mu      sync.Mutex
	samples []result.PowerSample
	rails   []railRead
	notes   []string
	failed  int // reads that failed
	reads   int
	marker  string // the unplug mark on the phone, "" when not unplugged

	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	stop   sync.Once
}

// Start probes the battery and the power monitors, resets what dead
// sessions left unplugged, unplugs the battery when asked, and starts the
// lane. It returns nil when env.On is false.
func Start(ctx context.Context, opt Options, env Env) *Lane {
	if !env.On {
		return nil
	}
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	l := &Lane{opt: opt, env: env, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if opt.Interval < MinInterval {
		l.noteLocked(fmt.Sprintf("energy: interval %v raised to %v: a shell command a read costs the phone a few ms of a core", opt.Interval, MinInterval))
		l.opt.Interval = MinInterval
	}
	cmds := append([]string{sysfsCmd, dumpsysCmd, dumpsys.PowerStatsCommand}, leftoverListing()...)
	send := env.Now()
	out, err := env.Batch(ctx, cmds)
	recv := env.Now()
	if err != nil || len(out) != len(cmds) {
		l.why = fmt.Sprintf("energy: the probe of the battery failed: %v", err)
		close(l.done)
		return l
	}
	l.pick(out, send, recv)
	l.resetLeftovers(ctx, out[3:])
	if opt.UnplugBattery {
		l.unplug(ctx)
	}
	if l.cmd == "" && l.railsWhy != "" && l.marker == "" {
		close(l.done) // nothing to read, no mark to keep fresh
		return l
	}
	lctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	go l.run(lctx)
	return l
}

// pick chooses the read from the probe's answers, and keeps them as the
// first read.
func (l *Lane) pick(out []adbx.Result, send, recv int64) {
	if s, err := parseSysfs(out[0]); err == nil {
		l.cmd = sysfsCmd
		l.add(s, send, recv)
	} else if bs, derr := dumpsys.ParseBattery(devcmd.Output(out[1])); derr == nil && bs.HasCurrent && bs.HasVoltage {
		l.cmd = dumpsysCmd
		l.add(fromState(bs), send, recv)
	} else {
		why := "no current figure"
		if derr != nil {
			why = derr.Error()
		}
		l.why = fmt.Sprintf("energy: no battery current to read (%s; %s: %s)", err, dumpsysCmd, why)
	}
	if rs, err := dumpsys.ParsePowerStats(devcmd.Output(out[2])); err == nil {
		l.rails = append(l.rails, railRead{hostNs: send + (recv-send)/2, rtt: recv - send, chans: rs})
	} else {
		l.railsWhy = "energy: no power monitors (" + devcmd.Clip(err.Error()) + ")"
	}
}

// parseSysfs reads sysfsCmd's three lines.
func parseSysfs(r adbx.Result) (result.PowerSample, error) {
	if err := r.Err(sysfsCmd); err != nil {
		return result.PowerSample{}, err
	}
	f := strings.Split(strings.TrimSpace(string(r.Stdout)), "\n")
	if len(f) != 3 {
		return result.PowerSample{}, fmt.Errorf("%s printed %d lines, want 3: %q", sysfsCmd, len(f), devcmd.Clip(string(r.Stdout)))
	}
	ma, err := dumpsys.ParseBatteryCurrentNow([]byte(f[0]))
	if err != nil {
		return result.PowerSample{}, err
	}
	mv, err := dumpsys.ParseBatteryVoltageNow([]byte(f[1]))
	if err != nil {
		return result.PowerSample{}, err
	}
	return result.PowerSample{CurrentMA: ma, VoltageMV: mv, Status: strings.ToLower(strings.TrimSpace(f[2]))}, nil
}

func fromState(bs dumpsys.BatteryState) result.PowerSample {
	return result.PowerSample{CurrentMA: bs.CurrentMA, VoltageMV: bs.VoltageMV, Status: bs.Status, Plugged: bs.Plugged}
}

// add keeps a read done between host ns send and recv.
func (l *Lane) add(s result.PowerSample, send, recv int64) {
	s.HostNs, s.RTTNs = send+(recv-send)/2, recv-send
	l.samples = append(l.samples, s)
}

// Kick asks for a read now: a step began or ended.
func (l *Lane) Kick() {
	if l == nil {
		return
	}
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *Lane) run(ctx context.Context) {
	defer close(l.done)
	timer := time.NewTimer(l.opt.Interval)
	defer timer.Stop()
	for n := 1; ; n++ {
		kicked := false
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-l.kick:
			kicked = true
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
		began := time.Now()
		l.read(ctx, kicked || n%railsEvery == 0)
		timer.Reset(max(0, l.opt.Interval-time.Since(began)))
	}
}

// read reads the battery (when it has a current to read), the power
// monitors when rails, and touches the unplug mark.
func (l *Lane) read(ctx context.Context, rails bool) {
	var cmds []string
	if l.cmd != "" {
		cmds = append(cmds, l.cmd)
	}
	rails = rails && l.railsWhy == ""
	if rails {
		cmds = append(cmds, dumpsys.PowerStatsCommand)
	}
	l.mu.Lock()
	if l.marker != "" {
		cmds = append(cmds, "touch "+adbx.Quote(l.marker))
	}
	l.mu.Unlock()
	if len(cmds) == 0 {
		return
	}
	tctx, cancel := context.WithTimeout(ctx, l.env.Timeout)
	send := l.env.Now()
	out, err := l.env.Batch(tctx, cmds)
	recv := l.env.Now()
	cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	if err != nil || len(out) != len(cmds) {
		if ctx.Err() == nil {
			l.failed++
		}
		return
	}
	if l.cmd != "" {
		l.absorbBattery(out[0], send, recv)
		out = out[1:]
	}
	if rails {
		if rs, err := dumpsys.ParsePowerStats(devcmd.Output(out[0])); err == nil {
			l.rails = append(l.rails, railRead{hostNs: send + (recv-send)/2, rtt: recv - send, chans: rs})
		} else {
			l.noteLocked("energy: a read of the power monitors failed: " + devcmd.Clip(err.Error()))
		}
	}
}

// absorbBattery keeps a read of the battery done between host ns send
// and recv.
func (l *Lane) absorbBattery(out adbx.Result, send, recv int64) {
	var s result.PowerSample
	var err error
	if l.cmd == sysfsCmd {
		s, err = parseSysfs(out)
	} else {
		var bs dumpsys.BatteryState
		bs, err = dumpsys.ParseBattery(devcmd.Output(out))
		s = fromState(bs)
	}
	if err != nil {
		l.failed++
		l.noteLocked("energy: a read of the battery failed: " + devcmd.Clip(err.Error()))
		return
	}
	l.add(s, send, recv)
}

func (l *Lane) noteLocked(n string) {
	if !slices.Contains(l.notes, n) {
		l.notes = append(l.notes, n)
	}
}

// Stop ends the lane: one last read, so the last step has a read after
// its end, and the battery reset when the session unplugged it.
func (l *Lane) Stop() {
	if l == nil {
		return
	}
	l.stop.Do(func() {
		if l.cancel != nil {
			l.cancel()
		}
		<-l.done
		l.read(context.Background(), true)
		l.reset()
	})
}

// markerName is a fresh unplug mark's path.
func markerName() string {
	return fmt.Sprintf("%s/perfgate-unplug-%016x", devcmd.TmpDir, rand.Uint64())
}
