package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/internal/stopsignal"
	"github.com/perfgate/perfgate/scenario"
)

// poolFlags are `perfgate run`'s fan-out flags.
type poolFlags struct {
	pool, perModel bool
	parallel       int
	shard          string
	config         string
	servers        string
	models         string
	api            string
	serial         string
}

func (p *poolFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.pool, "pool", false, "run on every device of the device pool the environment describes (see package devicepool)")
	fs.BoolVar(&p.perModel, "per-model", false, "with -pool: on one device of each model")
	fs.IntVar(&p.parallel, "parallel", 4, "with -pool: at most `n` devices at once")
	fs.StringVar(&p.shard, "shard", "", "with -pool: run on shard `k/n` of the devices (every n-th, from the k-th)")
	fs.StringVar(&p.config, "pool-config", "", "with -pool: the pool's config `file` (default $PERFGATE_POOL)")
	fs.StringVar(&p.servers, "servers", "", "with -pool: adb servers, `host:port,...` (default $PERFGATE_ADB_SERVERS)")
	fs.StringVar(&p.models, "models", "", "with -pool: only these device `models`, comma-separated (default $PERFGATE_DEVICE_MODELS)")
	fs.StringVar(&p.api, "api", "", "with -pool: only API levels in `range` such as 30-34 (default $PERFGATE_DEVICE_API)")
	fs.StringVar(&p.serial, "serials", "", "with -pool: only serials matching `pattern` (default $PERFGATE_DEVICE_SERIAL)")
}

// config is the pool the flags and the environment describe: a flag wins
// over its variable.
func (p *poolFlags) poolConfig() (devicepool.Config, error) {
	flags := map[string]string{
		devicepool.EnvConfig: p.config, devicepool.EnvServers: p.servers, devicepool.EnvModels: p.models,
		devicepool.EnvAPI: p.api, devicepool.EnvSerial: p.serial,
	}
	return devicepool.FromVars(func(name string) string {
		if v := flags[name]; v != "" {
			return v
		}
		return os.Getenv(name)
	})
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
	var wg sync.WaitGroup
	var failed []string
	slots := make(chan struct{}, pf.parallel)
	for i, m := range mine {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			var out bytes.Buffer
			err := scenarioRun(fan[i], memberArgs(fs, m, sc.Path), &out, &out)
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stdout, "=== %s\n%s", m, out.String())
			if err != nil {
				fmt.Fprintf(stdout, "perfgate: %v\n", err)
				failed = append(failed, m.String())
			}
		}()
	}
	wg.Wait()
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
	cfg, err := pf.poolConfig()
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
