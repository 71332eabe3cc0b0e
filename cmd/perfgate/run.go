package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/internal/stopsignal"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simlab"
)

const runUsage = `usage: perfgate run [-update] [-serial S] [-adb host:port] scenario.json
       perfgate run -pool [-per-model] [-parallel N] [-shard k/n] [-update] scenario.json
       perfgate run -app PKG [-iterations N] [-budget FILE] [flags] -- COMMAND [ARG...]

Runs a scenario file: launches and drives the app through uiautomator2, each
step measured, then checks the file's budgets. Exits 1 when a step fails or
a budget breaks. Ctrl-C, SIGTERM or SIGHUP stops it: the step in progress is
marked unfinished, the Result of every step so far is written, budgets are
not checked (nor rewritten), and the exit status is 130, 143 or 129. The
file (JSON):

  {
    "package": "com.example.feed",
    "simulated": { "workload": "janky-scroll", "api": 33 },
    "steps": [
      { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 3 } ] },
      { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 5 } ] }
    ],
    "budgets": { "launch": { "startup_initial": { "max": 1000 } }, "scroll": { "jank": { "max": 3 } } },
    "results": "perf-out",
    "trace": true
  }

"simulated" runs on a simulated phone started in-process; without it the
device is -serial, $ANDROID_SERIAL or the only one attached. "budgets" is a
budget file's "steps" inline, or the path of a budget file (relative to the
scenario file), which -update rewrites from the run. "results" is the
folder the Results go to, relative to the scenario file (default
perf-results beside it); a file there that is not a perfgate Result (the
scenario itself) is never replaced. Actions: launch (kind
cold|warm|hot, iterations, fully_drawn_ms, activity, compilation
none|partial|full), tap (text|id|desc),
tap_at (x, y), swipe and fling (direction up|down|left|right, count,
distance, duration_ms), back, home, key (code), type (text|id|desc, input),
wait (text|id|desc, timeout_ms), sleep (ms). Every *_ms and ms value is at
most 600000 (10 minutes), iterations and count at most 1000. A key given
twice in one object is an error. A
crash or ANR of the app fails its step unless the step says
"expect_crash": true.
With -pool the scenario runs on every device of a device pool ($PERFGATE_POOL,
$PERFGATE_ADB_SERVERS, $PERFGATE_DEVICE_MODELS, $PERFGATE_DEVICE_API,
$PERFGATE_DEVICE_SERIAL; see package devicepool), or on one of each model,
at most -parallel at once, each writing its own Result; -shard k/n takes
every n-th device, for CI jobs that split a lab. A phone that two servers
list, or one on USB and TCP at once, runs once (it says which serials it
took for one phone).
"trace" records a Perfetto trace around the steps (Android 10+; FrameTimeline
jank types on 12+) into the results folder: true, or an object with
buffer_kb (1024 to 1048576), categories (atrace categories) and
max_duration_ms.
With "--" COMMAND runs here -iterations times, each a step (see package
hostcmd); a non-zero exit or -timeout fails the step and ends the run.
`

// runScenario is `perfgate run`; SIGINT, SIGTERM and SIGHUP stop it early
// (see scenarioRun).
func runScenario(args []string, stdout, stderr io.Writer) error {
	sigs, stop := stopsignal.Notify()
	defer stop()
	if i := slices.Index(args, "--"); i >= 0 {
		return commandRun(sigs, args[:i], args[i+1:], stdout, stderr)
	}
	return scenarioRun(sigs, args, stdout, stderr)
}

// runFlags are `perfgate run`'s flags.
type runFlags struct {
	fs             *flag.FlagSet
	serial, server *string
	update         *bool
	headroom       *float64
	pool           poolFlags
}

func newRunFlags(stderr io.Writer) *runFlags {
	fs := newFlagSet("run", runUsage, stderr)
	f := &runFlags{fs: fs,
		serial:   fs.String("serial", "", "device serial (default $ANDROID_SERIAL, else the only device); ignored with \"simulated\""),
		server:   fs.String("adb", "", "adb server host:port (default $ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)"),
		update:   fs.Bool("update", false, "rewrite the budget file from this run"),
		headroom: fs.Float64("headroom", 10, "with -update: percent a recorded budget leaves above (below, for floors such as fps) the measured value, 1 to 500"),
	}
	f.pool.register(fs)
	return f
}

// load reads the scenario file the arguments name, and its budgets: a
// budget file's steps must be the scenario's before anything is measured.
func (f *runFlags) load() (*scenario.File, *budget.File, error) {
	if f.fs.NArg() != 1 {
		return nil, nil, clihelp.Wrong(f.fs, fmt.Errorf("run: want one scenario file, got %d arguments", f.fs.NArg()))
	}
	path := f.fs.Arg(0)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	sc, err := simlab.ParseScenarioFile(path, b)
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	if *f.headroom < 1 || *f.headroom > 500 {
		return nil, nil, fmt.Errorf("run: -headroom %g: want a percentage from 1 to 500", *f.headroom)
	}
	if *f.update {
		if sc.BudgetPath == "" {
			return nil, nil, fmt.Errorf("run: -update needs \"budgets\" to name a budget file in %s", path)
		}
		return sc, nil, nil
	}
	budgets, err := sc.ReadBudgets()
	if err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	return sc, budgets, nil
}

// scenarioRun runs a scenario file until its end or the first signal from
// sigs. A signal ends the step in progress as unfinished, skips the rest,
// writes the Result of what was measured and exits with the signal's
// status; budgets are then neither checked nor rewritten, since a cut run
// would break them or record from half a step.
func scenarioRun(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) error {
	f := newRunFlags(stderr)
	if err := clihelp.Parse(f.fs, args); err != nil {
		return err
	}
	sc, budgets, err := f.load()
	if err != nil {
		return err
	}
	if f.pool.on() {
		return runOnPool(sigs, f.fs, f.pool, sc, stdout)
	}
	stopCtx, stopWatch := stopsignal.Watch(sigs)
	defer stopWatch()
	s, closeAll, err := f.open(stopCtx, sc, stdout)
	defer closeAll()
	if err != nil {
		return err
	}
	sc.Run(stopCtx, s, func(i int) {
		fmt.Fprintf(stderr, "run: step %d of %d: %s\n", i+1, len(sc.Steps), sc.Steps[i].Name)
	})
	r := s.Stop()
	report.WriteSteps(stdout, r)
	report.WriteHealth(stdout, r)
	if _, ok := stopsignal.Caught(stopCtx); ok {
		return runCut(stopCtx, s.Session(), r, s.Errors(), len(sc.Steps), stdout)
	}
	notes := sc.Judge(r, budgets, *f.update, budget.Headroom{Pct: *f.headroom})
	return runEnd(sc, s.Session(), r, notes, "perfgate run -update "+sc.Path, stdout)
}

// open opens the device (the simulated phone the file asks for, started
// here, or -serial's) and starts the scenario's session on it. Call
// closeAll when the run is over, whatever the error.
func (f *runFlags) open(stopCtx context.Context, sc *scenario.File, stdout io.Writer) (s *scenario.Scenario, closeAll func(), err error) {
	var closers []func()
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	openFailed := func(err error) error {
		if _, ok := stopsignal.Caught(stopCtx); ok {
			return interrupted(stopCtx, "before the device was open; nothing measured")
		}
		return fmt.Errorf("run: %w", err)
	}
	ctx, cancel := context.WithTimeout(stopCtx, 30*time.Second)
	closers = append(closers, cancel)
	var dev *adbx.Device
	if sim := sc.Simulated; sim != nil {
		p, err := simlab.ServeScenarioPhone(sim.Workload, sim.API, sim.Noise, filepath.Dir(sc.Path), sc.Package)
		if err != nil {
			return nil, closeAll, fmt.Errorf("run: simulated device: %w", err)
		}
		closers = append(closers, p.Close)
		if dev, err = adbx.Open(ctx, adbx.Options{Server: p.Server.Addr}); err != nil {
			return nil, closeAll, openFailed(err)
		}
		fmt.Fprintf(stdout, "device: %s\n", p)
	} else {
		if dev, err = adbx.Open(ctx, adbx.Options{Serial: *f.serial, Server: *f.server}); err != nil {
			return nil, closeAll, openFailed(err)
		}
		fmt.Fprintf(stdout, "device: %s\n", dev.Serial())
	}
	if s, err = scenario.New(ctx, dev, sc.Package, sc.Config()); err != nil {
		return nil, closeAll, openFailed(err)
	}
	return s, closeAll, nil
}

// interrupted is the error of a run the signal that ended ctx cut short.
func interrupted(ctx context.Context, where string) error {
	sig, _ := stopsignal.Caught(ctx)
	return exitError{code: sig.ExitCode(), err: fmt.Errorf("run: %v %s", sig, where)}
}

// runCut writes the Result of a run a signal cut short: its budgets are
// neither checked nor rewritten, since a cut run would break them or
// record from half a step.
func runCut(ctx context.Context, s *perftest.Session, r *result.Result, errs []string, steps int, stdout io.Writer) error {
	werr := s.Publish()
	report.WritePath(stdout, r)
	for _, e := range errs {
		fmt.Fprintln(stdout, e)
	}
	if werr != nil {
		fmt.Fprintln(stdout, werr)
	}
	return interrupted(ctx, fmt.Sprintf("after %d of %d steps; budgets not checked", scenario.Finished(r), steps))
}

// runEnd writes the Result of a run that ended and prints every failing
// verdict it holds: crashes no step expected, failed actions, broken
// budgets, refused updates. Any of them is exit status 1. update is the
// command that rewrites the budget file.
func runEnd(sc *scenario.File, s *perftest.Session, r *result.Result, notes []string, update string, stdout io.Writer) error {
	werr := s.Publish()
	report.WritePath(stdout, r)
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	o := sc.Outcome(stdout, r, werr)
	if werr != nil {
		fmt.Fprintln(stdout, werr)
	}
	if o.Failed[budget.KindBudget] > 0 && sc.BudgetPath != "" {
		fmt.Fprintf(stdout, "run '%s' to rewrite %s if the change is intended\n", update, sc.BudgetPath)
	}
	if o.OK() {
		return nil
	}
	return exitError{code: 1, err: errors.New("run: " + o.String())}
}

// poolFlags are `perfgate run`'s fan-out flags.
type poolFlags struct {
	pool, perModel bool
	parallel       int
	shard          string
	config         func() (devicepool.Config, error)
}

func (p *poolFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.pool, "pool", false, "run on every device of the device pool the environment describes (see package devicepool)")
	fs.BoolVar(&p.perModel, "per-model", false, "with -pool: on one device of each model")
	fs.IntVar(&p.parallel, "parallel", 4, "with -pool: at most `n` devices at once")
	fs.StringVar(&p.shard, "shard", "", "with -pool: run on shard `k/n` of the devices (every n-th, from the k-th)")
	p.config = devicepool.RegisterFlags(fs, "with -pool: ")
}

func (p *poolFlags) on() bool { return p.pool }

// runOnPool runs the scenario on the pool's devices, -parallel at a time,
// each run's output printed whole under a line naming its device. It fails
// when any run fails.
// The scenario is read and -update handled (for every run at once: each
// records its own model where the file holds budgets per model).
func runOnPool(sigs <-chan os.Signal, fs *flag.FlagSet, pf poolFlags, sc *scenario.File, stdout io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mine, err := pf.members(ctx, fs, sc, stdout)
	if err != nil {
		return err
	}
	fan := stopsignal.FanOut(ctx, sigs, len(mine))
	var mu sync.Mutex
	errs := devicepool.Fan(mine, pf.parallel, func(i int, m *devicepool.Member) error {
		var out bytes.Buffer
		err := scenarioRun(fan[i], memberArgs(fs, m, sc.Path), &out, &out)
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stdout, "=== %s\n%s", m, out.String())
		if err != nil {
			fmt.Fprintf(stdout, "perfgate: %v\n", err)
		}
		return err
	})
	var failed []string
	for i, err := range errs {
		if err != nil {
			failed = append(failed, mine[i].String())
		}
	}
	if len(failed) > 0 {
		return exitError{code: 1, err: fmt.Errorf("run: failed on %d of %d devices: %s", len(failed), len(mine), strings.Join(failed, "; "))}
	}
	fmt.Fprintf(stdout, "run: passed on %d devices; merge their Results with perfgate report\n", len(mine))
	return nil
}

// members checks the pool flags and lists the devices of -shard, one per
// model with -per-model, saying how many run at once.
func (pf poolFlags) members(ctx context.Context, fs *flag.FlagSet, sc *scenario.File, stdout io.Writer) ([]*devicepool.Member, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["serial"] || set["adb"] {
		return nil, errors.New("run: -pool picks the devices; drop -serial and -adb")
	}
	if pf.parallel < 1 || pf.parallel > 256 {
		return nil, fmt.Errorf("run: -parallel %d: want 1 to 256", pf.parallel)
	}
	k, n, err := devicepool.ParseShard(pf.shard)
	if err != nil {
		return nil, fmt.Errorf("run: -shard: %w", err)
	}
	if sc.Simulated != nil {
		return nil, fmt.Errorf("run: -pool: %s runs on a simulated phone of its own (\"simulated\"); drop it to run on the pool", sc.Path)
	}
	cfg, err := pf.config()
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	p, err := devicepool.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	mine, err := p.Pick(pf.perModel, k, n)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	fmt.Fprintf(stdout, "run: %s on %d devices, %d at a time\n", sc.Path, len(mine), min(pf.parallel, len(mine)))
	// A phone two servers list (or one on USB and TCP) runs once: say
	// which serials were taken for one phone.
	for _, n := range p.Notes() {
		fmt.Fprintf(stdout, "run: %s\n", n)
	}
	return mine, nil
}

// memberArgs are the `perfgate run` arguments of one device's run: its
// server and serial, and the -update and -headroom given.
func memberArgs(fs *flag.FlagSet, m *devicepool.Member, path string) []string {
	args := []string{"-adb", m.Server(), "-serial", m.Serial()}
	for _, name := range []string{"update", "headroom"} {
		fs.Visit(func(f *flag.Flag) {
			if f.Name == name {
				args = append(args, "-"+name+"="+f.Value.String())
			}
		})
	}
	return append(args, path)
}
