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
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest"
)

const recordUsage = `usage: perfgate record -package PKG [-serial S] [-duration 10s] [-out result.json] [-adb host:port]

Records one step named "record" on a device: frames, CPU, memory, traffic and
battery, until -duration passes or Ctrl-C. Prints a live line a second to
stderr and writes the Result (schema perfgate.result/v1) to -out.
`

// runRecord is `perfgate record`; Ctrl-C (SIGINT) or SIGTERM ends the
// recording early and still writes the Result.
func runRecord(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return record(ctx, args, stdout, stderr)
}

// record runs until ctx ends (the interrupt) or -duration passes.
func record(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, recordUsage); fs.PrintDefaults() }
	serial := fs.String("serial", "", "device serial (default $ANDROID_SERIAL, else the only device)")
	pkg := fs.String("package", "", "the app's package name (required)")
	duration := fs.Duration("duration", 0, "how long to record; 0 records until Ctrl-C")
	out := fs.String("out", "result.json", "where to write the Result JSON")
	server := fs.String("adb", "", "adb server host:port (default $ADB_SERVER_SOCKET, else 127.0.0.1:5037)")
	interval := fs.Duration("interval", 0, "cheap-lane sampling interval (default 100ms; lowered, with a note, where the device's frame buffers hold less)")
	source := fs.String("source", "auto", "frame source: auto, gfxinfo or surfaceflinger")
	layer := fs.String("layer", "", "SurfaceFlinger layer to poll (default: picked from --list)")
	wait := fs.Bool("wait", false, "start even when the app is not running yet")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("record: unexpected argument %q", fs.Arg(0))
	}
	if *pkg == "" {
		fs.Usage()
		return errors.New("record: -package is required")
	}
	if *duration < 0 {
		return fmt.Errorf("record: -duration %v is negative", *duration)
	}
	if *interval < 0 {
		return fmt.Errorf("record: -interval %v is negative", *interval)
	}
	var src perftest.FrameSource
	switch *source {
	case "auto":
	case "gfxinfo":
		src = perftest.SourceGfxInfo
	case "surfaceflinger":
		src = perftest.SourceSurfaceFlinger
	default:
		return fmt.Errorf("record: -source %q: want auto, gfxinfo or surfaceflinger", *source)
	}

	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	dev, err := adbx.Open(openCtx, adbx.Options{Serial: *serial, Server: *server})
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	live := &liveLine{w: stderr}
	sess, err := perftest.NewSession(openCtx, dev, perftest.Config{
		Package:     *pkg,
		Name:        "record",
		ResultFile:  *out,
		Interval:    *interval,
		FrameSource: src,
		Layer:       *layer,
		WaitForApp:  *wait,
		OnTick:      live.tick,
	})
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	sess.Begin("record")
	var timeout <-chan time.Time
	if *duration > 0 {
		t := time.NewTimer(*duration)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-timeout:
	case <-sess.Done():
	}
	sess.End()
	r := sess.Stop()

	st := r.Step("record")
	f := stepFigures(st)
	fmt.Fprintf(stdout, "wrote %s: %s, %s, %d gaps\n", r.Path, st.Duration().Round(time.Millisecond), strings.Join(f.parts, ", "), len(r.Gaps))
	if why := f.why(); why != "" {
		fmt.Fprintln(stdout, why)
	}
	printHealth(stdout, r)
	if r.Error != "" {
		return fmt.Errorf("record: %s (partial result in %s)", r.Error, r.Path)
	}
	return nil
}

// liveLine prints the session's state at most once a second.
type liveLine struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Duration
}

func (l *liveLine) tick(s perftest.Live) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last != 0 && s.Elapsed-l.last < time.Second {
		return
	}
	l.last = s.Elapsed
	// FPS needs two frames and PSS a meminfo read (a running app never
	// has 0): until then they are not measured, not 0.
	fps, pss := "    -", "-"
	if s.Frames >= 2 {
		fps = fmt.Sprintf("%5.1f", s.FPS)
	}
	if s.PSSKB > 0 {
		pss = fmt.Sprint(s.PSSKB)
	}
	fmt.Fprintf(l.w, "%6.1fs  fps %s  jank %3d  cpu %5.1f%%  pss %s KiB  frames %d  gaps %d\n",
		s.Elapsed.Seconds(), fps, s.Jank, s.CPUPct, pss, s.Frames, s.Gaps)
}

// printHealth prints how regularly the session sampled, the app's process
// ends that were not crashes, and every note of the Result: the options
// the session changed, the sources it fell back on.
func printHealth(w io.Writer, r *perftest.Result) {
	if t := r.Whole; t != nil {
		fmt.Fprintf(w, "ticks: %d every %gms, %d late; spacing p95 %.0fms, max %.0fms; round trip max %.0fms\n",
			t.Ticks.Ticks, r.Config.IntervalMs, t.Ticks.Late, t.Ticks.P95SpacingMs, t.Ticks.MaxSpacingMs, t.Ticks.MaxRTTMs)
	}
	for _, e := range r.ProcessEnds {
		fmt.Fprintf(w, "process end: pid %d in step %q: %s", e.PID, e.Step, strings.ReplaceAll(e.Reason, "_", "-"))
		if e.Cause != "" {
			fmt.Fprintf(w, " (%s)", e.Cause)
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
