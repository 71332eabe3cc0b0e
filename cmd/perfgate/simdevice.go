package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/simlab"
)

const simdeviceUsage = `usage: perfgate simdevice [flags]
       perfgate simdevice -count N | -lab lab.json [-connect]

Serves one simulated Android phone over the adb device protocol until
interrupted. Join it with the printed "adb connect" line.

With -count or -lab it serves a lab of phones of several models, API
levels and speeds instead: some from a pure-Go adb server of its own,
the others for the stock adb server to join with "adb connect" (-connect
runs it). It prints the PERFGATE_ADB_SERVERS line a device pool reads;
-servers-file writes its value to a file once the phones serve, for a
lab started in the background:

	perfgate simdevice -count 4 -connect -servers-file lab.servers &
	export PERFGATE_ADB_SERVERS=$(cat lab.servers)

-addr-file does the same for one phone: with -listen 127.0.0.1:0 it
serves on a free port and writes the address to adb connect to:

	perfgate simdevice -listen 127.0.0.1:0 -addr-file sim.addr &
	adb connect "$(cat sim.addr)"

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

// simdeviceFlags are `perfgate simdevice`'s flags.
type simdeviceFlags struct {
	fs                                     *flag.FlagSet
	listen, workload, truth, serial        *string
	replay, replayPkg, labFile, serversTo  *string
	addrTo                                 *string
	api, count                             *int
	refreshHz, speed, frameNoise, runNoise *float64
	connect                                *bool
	noiseSeed                              *int64
}

func newSimdeviceFlags(stderr io.Writer) *simdeviceFlags {
	fs := flag.NewFlagSet("simdevice", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &simdeviceFlags{fs: fs,
		listen:     fs.String("listen", "127.0.0.1:15555", "loopback `address` to serve adbd on (not a port in 5555-5585)"),
		api:        fs.Int("api", simdevice.DefaultAPI, "Android API `level` whose output formats the device speaks (28, 30, 33, 34)"),
		workload:   fs.String("workload", "", "built-in workload `name` ("+strings.Join(simdevice.PresetNames(), ", ")+") or a workload JSON file; default smooth-scroll"),
		truth:      fs.String("truth", "", "write every rendered frame as JSON lines to `file` (ground truth)"),
		refreshHz:  fs.Float64("refresh-hz", 0, "display refresh rate in `Hz`; default the workload's, else 60"),
		serial:     fs.String("serial", "", "`serial` number the device reports; default "+simdevice.DefaultSerial),
		replay:     fs.String("replay", "", "play this `file`, a `dumpsys gfxinfo <pkg> framestats` capture, as the phone that printed it (instead of --workload)"),
		replayPkg:  fs.String("package", "", "with --replay: the `package` whose frames play (needed when the capture has several)"),
		speed:      fs.Float64("replay-speed", 1, "with --replay: device time per host time (0.1 to 100)"),
		count:      fs.Int("count", 0, "serve a lab of `n` phones of four models, every other one for the stock adb server"),
		labFile:    fs.String("lab", "", "serve the phones a lab `file` lists (see README, \"The simulated lab\")"),
		serversTo:  fs.String("servers-file", "", "with -count or -lab: once the phones serve, write the lab's adb servers (the PERFGATE_ADB_SERVERS value) to `file`"),
		addrTo:     fs.String("addr-file", "", "once the phone serves, write the address it listens on to `file` (with -listen 127.0.0.1:0, a free port); removed when it stops"),
		connect:    fs.Bool("connect", false, "with -count or -lab: join the lab's \"adb\" phones to your adb server (runs adb connect)"),
		noiseSeed:  fs.Int64("noise-seed", 0, "with -frame-noise or -run-noise: the `seed` every noise draw derives from"),
		frameNoise: fs.Float64("frame-noise", 0, "standard deviation in `percent` of the noise on each frame's work, CPU tick and launch (0 to 50)"),
		runNoise:   fs.Float64("run-noise", 0, "standard deviation in `percent` of the factor drawn once per run on frame work, CPU, memory and launch times (0 to 50)"),
	}
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), simdeviceUsage)
		fs.PrintDefaults()
	}
	return f
}

// config checks the one-phone flags and returns the phone's configuration
// (its truth file still to open).
func (f *simdeviceFlags) config() (simdevice.Config, error) {
	cfg, err := simlab.PhoneSpec{API: *f.api, RefreshHz: *f.refreshHz, Serial: *f.serial, Workload: *f.workload,
		Replay: *f.replay, ReplayPackage: *f.replayPkg, ReplaySpeed: *f.speed,
		NoiseSeed: *f.noiseSeed, FramePct: *f.frameNoise, RunPct: *f.runNoise}.Config()
	if err != nil {
		return cfg, fmt.Errorf("simdevice: %w", err)
	}
	return cfg, nil
}

func runSimdevice(args []string, stdout, stderr io.Writer) error {
	f := newSimdeviceFlags(stderr)
	if err := clihelp.Parse(f.fs, args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return clihelp.Wrong(f.fs, fmt.Errorf("simdevice: unexpected arguments %q", f.fs.Args()))
	}
	if *f.refreshHz < 0 {
		return fmt.Errorf("simdevice: --refresh-hz %v: must be positive", *f.refreshHz)
	}
	if *f.count != 0 || *f.labFile != "" {
		set := map[string]bool{}
		f.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		return runLab(*f.count, *f.labFile, *f.serversTo, *f.connect, set, stdout)
	}
	if *f.connect {
		return errors.New("simdevice: --connect goes with --count or --lab")
	}
	if *f.serversTo != "" {
		return errors.New("simdevice: --servers-file goes with --count or --lab")
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	var truthFile *os.File
	if *f.truth != "" {
		tf, err := os.Create(*f.truth)
		if err != nil {
			return fmt.Errorf("simdevice: --truth: %w", err)
		}
		defer tf.Close()
		cfg.Truth, truthFile = tf, tf
	}
	dev, err := simdevice.New(cfg)
	if err != nil {
		if *f.replay != "" {
			return fmt.Errorf("simdevice: --replay %s: %w", *f.replay, err)
		}
		return fmt.Errorf("simdevice: %w", err)
	}
	defer dev.Close()
	return f.serve(dev, truthFile, stdout)
}

// serve serves dev on -listen until interrupted.
func (f *simdeviceFlags) serve(dev *simdevice.Device, truthFile *os.File, stdout io.Writer) error {
	adbd, err := adbtest.ListenAdbd(*f.listen, dev)
	if err != nil {
		if errors.Is(err, adbtest.ErrReservedPort) {
			// The stock adb server probes these ports for emulators.
			return fmt.Errorf("simdevice: --listen %s: %w; pick another port, such as 127.0.0.1:15555", *f.listen, adbtest.ErrReservedPort)
		}
		return fmt.Errorf("simdevice: --listen %s: %w", *f.listen, err)
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
	if *f.addrTo != "" {
		if err := writeReady("addr-file", *f.addrTo, adbd.Addr); err != nil {
			return err
		}
		defer os.Remove(*f.addrTo)
		fmt.Fprintf(stdout, "wrote the address to %s\n", *f.addrTo)
	}
	if *f.replay != "" {
		fmt.Fprintf(stdout, "replaying %s for %s: it plays from the first `dumpsys gfxinfo %s`\n", *f.replay, dev.World().Package(), dev.World().Package())
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
		return fmt.Errorf("simdevice: --truth %s: %w", *f.truth, err)
	}
	return nil
}

// labFlags are the simdevice flags a lab goes with; the others describe one
// phone.
var labFlags = []string{"count", "lab", "connect", "servers-file"}

// runLab serves a lab of simulated phones until interrupted.
func runLab(count int, file, serversTo string, connect bool, set map[string]bool, stdout io.Writer) error {
	for name := range set {
		if !slices.Contains(labFlags, name) {
			return fmt.Errorf("simdevice: --%s describes one phone; a lab file says it per phone", name)
		}
	}
	lab, err := simlab.LabOf(count, file)
	if err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	r, err := simlab.ServeStock(lab, connect)
	if err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	defer r.Close()

	ctx, stop := interruptContext()
	defer stop()
	fmt.Fprintf(stdout, "perfgate simdevice: a lab of %d phones\n", len(r.Phones))
	var join []string
	for _, p := range r.Phones {
		if p.Config.Server == simlab.ServerADB && !connect {
			join = append(join, p.Serial)
		}
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	if len(join) > 0 {
		fmt.Fprintln(stdout, "join the adbd phones to your adb server with:")
		for _, a := range join {
			fmt.Fprintf(stdout, "\tadb connect %s\n", a)
		}
	}
	servers := strings.Join(r.Servers(), ",")
	fmt.Fprintf(stdout, "point a device pool at it with:\n\texport %s=%s\n", devicepool.EnvServers, servers)
	if serversTo != "" {
		if err := writeReady("servers-file", serversTo, servers); err != nil {
			return err
		}
		defer os.Remove(serversTo)
		fmt.Fprintf(stdout, "wrote the servers to %s\n", serversTo)
	}
	fmt.Fprintln(stdout, "stop with Ctrl-C")
	<-ctx.Done()
	fmt.Fprintln(stdout, "perfgate simdevice: stopping")
	if connect {
		r.DisconnectStock()
	}
	if err := r.Close(); err != nil {
		return fmt.Errorf("simdevice: %w", err)
	}
	return nil
}

// writeReady writes value, what a command started in the background needs
// (the lab's servers, the phone's address), to file for the flag that names
// it, whole or not at all: a reader of the file that finds it finds the
// complete value.
func writeReady(flagName, file, value string) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(value+"\n"), 0o644); err != nil {
		return fmt.Errorf("simdevice: --%s %s: %w", flagName, file, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("simdevice: --%s %s: %w", flagName, file, err)
	}
	return nil
}
