package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

const simdeviceUsage = `usage: perfgate simdevice [flags]
       perfgate simdevice -count N | -lab lab.json [-connect]

Serves one simulated Android phone over the adb device protocol until
interrupted. Join it with the printed "adb connect" line.

With -count or -lab it serves a lab of phones of several models, API
levels and speeds instead: some from a pure-Go adb server of its own,
the others for the stock adb server to join with "adb connect" (-connect
runs it). It prints the PERFGATE_ADB_SERVERS line a device pool reads.

-run-noise and -frame-noise make the phone vary as a real one does, so a
regression gate can be tried on noise: -run-noise P draws one factor for
the whole run (standard deviation P %: a run lands within ±2P % of the
mean in about 95 % of runs) that scales frame work, CPU loads, memory and
launch times; -frame-noise P draws a factor of standard deviation P % for
every frame, CPU tick and launch. -noise-seed picks the run:
the same seed gives the same phone. The truth file holds the noisy frames.

flags:
`

// interruptContext ends when the user asks the command to stop. Tests swap
// it for a context they cancel themselves.
var interruptContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runSimdevice(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simdevice", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:15555", "loopback `address` to serve adbd on (not a port in 5555-5585)")
	api := fs.Int("api", simdevice.DefaultAPI, "Android API `level` whose output formats the device speaks (28, 30, 33, 34)")
	workload := fs.String("workload", "", "built-in workload `name` ("+strings.Join(simdevice.PresetNames(), ", ")+") or a workload JSON file; default smooth-scroll")
	truth := fs.String("truth", "", "write every rendered frame as JSON lines to `file` (ground truth)")
	refreshHz := fs.Float64("refresh-hz", 0, "display refresh rate in `Hz`; default the workload's, else 60")
	serial := fs.String("serial", "", "`serial` number the device reports; default "+simdevice.DefaultSerial)
	replay := fs.String("replay", "", "play this `file`, a `dumpsys gfxinfo <pkg> framestats` capture, as the phone that printed it (instead of --workload)")
	replayPkg := fs.String("package", "", "with --replay: the `package` whose frames play (needed when the capture has several)")
	speed := fs.Float64("replay-speed", 1, "with --replay: device time per host time (0.1 to 100)")
	count := fs.Int("count", 0, "serve a lab of `n` phones of four models, every other one for the stock adb server")
	labFile := fs.String("lab", "", "serve the phones a lab `file` lists (see README, \"The simulated lab\")")
	connect := fs.Bool("connect", false, "with -count or -lab: join the lab's \"adb\" phones to your adb server (runs adb connect)")
	noiseSeed := fs.Int64("noise-seed", 0, "with -frame-noise or -run-noise: the `seed` every noise draw derives from")
	frameNoise := fs.Float64("frame-noise", 0, "standard deviation in `percent` of the noise on each frame's work, CPU tick and launch (0 to 50)")
	runNoise := fs.Float64("run-noise", 0, "standard deviation in `percent` of the factor drawn once per run on frame work, CPU, memory and launch times (0 to 50)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), simdeviceUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("simdevice: unexpected arguments %q", fs.Args())
	}
	if *refreshHz < 0 {
		return fmt.Errorf("simdevice: --refresh-hz %v: must be positive", *refreshHz)
	}
	if *count != 0 || *labFile != "" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		return runLab(*count, *labFile, *connect, set, stdout)
	}
	if *connect {
		return errors.New("simdevice: --connect goes with --count or --lab")
	}

	cfg := simdevice.Config{API: *api, RefreshHz: *refreshHz, Serial: *serial}
	for _, f := range []struct {
		name string
		v    float64
	}{{"frame-noise", *frameNoise}, {"run-noise", *runNoise}} {
		if !(f.v >= 0 && f.v <= simdevice.MaxNoisePct) {
			return fmt.Errorf("simdevice: --%s %v: want 0 to %d percent", f.name, f.v, simdevice.MaxNoisePct)
		}
	}
	cfg.Noise = simdevice.Noise{Seed: *noiseSeed, FramePct: *frameNoise, RunPct: *runNoise}
	if *noiseSeed != 0 && *frameNoise == 0 && *runNoise == 0 {
		return errors.New("simdevice: --noise-seed goes with --frame-noise or --run-noise")
	}
	if *replay != "" && (*frameNoise != 0 || *runNoise != 0) {
		return errors.New("simdevice: --frame-noise and --run-noise do not apply to --replay: it plays the capture's frames")
	}
	if *replay == "" && (*replayPkg != "" || *speed != 1) {
		return errors.New("simdevice: --package and --replay-speed go with --replay")
	}
	if *replay != "" {
		if *workload != "" {
			return errors.New("simdevice: --replay and --workload: give one")
		}
		b, err := os.ReadFile(*replay)
		if err != nil {
			return fmt.Errorf("simdevice: --replay: %w", err)
		}
		cfg.Replay = &simdevice.Replay{Capture: b, Package: *replayPkg, Speed: *speed}
	}
	if *workload != "" {
		w, err := loadWorkload(*workload)
		if err != nil {
			return err
		}
		cfg.Workload = w
	}
	var truthFile *os.File
	if *truth != "" {
		f, err := os.Create(*truth)
		if err != nil {
			return fmt.Errorf("simdevice: --truth: %w", err)
		}
		defer f.Close()
		cfg.Truth, truthFile = f, f
	}
	dev, err := simdevice.New(cfg)
	if err != nil {
		if *replay != "" {
			return fmt.Errorf("simdevice: --replay %s: %w", *replay, err)
		}
		return fmt.Errorf("simdevice: %w", err)
	}
	defer dev.Close()
	adbd, err := adbtest.ListenAdbd(*listen, dev)
	if err != nil {
		if errors.Is(err, adbtest.ErrReservedPort) {
			// The stock adb server probes these ports for emulators.
			return fmt.Errorf("simdevice: --listen %s: %w; pick another port, such as 127.0.0.1:15555", *listen, adbtest.ErrReservedPort)
		}
		return fmt.Errorf("simdevice: --listen %s: %w", *listen, err)
	}
	defer adbd.Close()

	ctx, stop := interruptContext()
	defer stop()
	_, model, _ := dev.Product()
	fmt.Fprintf(stdout, "perfgate simdevice: %s (API %d, serial %s) listening on %s\n", model, dev.Config().API, dev.Serial(), adbd.Addr)
	fmt.Fprintf(stdout, "join it with:\n\tadb connect %s\n", adbd.Addr)
	if n := dev.Config().Noise; n.FramePct > 0 || n.RunPct > 0 {
		fmt.Fprintf(stdout, "noise: seed %d, run factor %.4f (run noise %g %%), frame noise %g %%\n", n.Seed, n.RunFactor(), n.RunPct, n.FramePct)
	}
	if *replay != "" {
		fmt.Fprintf(stdout, "replaying %s for %s: it plays from the first `dumpsys gfxinfo %s`\n", *replay, dev.World().Package(), dev.World().Package())
	}
	fmt.Fprintln(stdout, "stop with Ctrl-C")
	<-ctx.Done()
	fmt.Fprintln(stdout, "perfgate simdevice: stopping")
	adbd.Close()
	// The truth file is the ground truth of every frame: one cut short by a
	// write error is an error, not a quiet exit.
	err = dev.Close()
	if truthFile != nil {
		err = errors.Join(err, truthFile.Close())
	}
	if err != nil {
		return fmt.Errorf("simdevice: --truth %s: %w", *truth, err)
	}
	return nil
}

// loadWorkload takes a preset name, or a path to a workload file.
func loadWorkload(spec string) (*simdevice.Workload, error) {
	if _, err := os.Stat(spec); err == nil {
		w, err := simdevice.LoadWorkload(spec)
		if err != nil {
			return nil, fmt.Errorf("simdevice: --workload: %w", err)
		}
		return w, nil
	}
	w, err := simdevice.Preset(spec)
	if err != nil {
		return nil, fmt.Errorf("simdevice: --workload %q is neither a file nor a built-in workload: %w", spec, err)
	}
	return w, nil
}
