package hostcmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/filename"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// Restart is what happens to the app before each iteration.
type Restart int

const (
	// Cold force-stops the app before each iteration, outside its step
	// (and not as a crash): the command starts it, as a Maestro flow's
	// launchApp does. It is the default, as in Flashlight.
	Cold Restart = iota
	// None leaves the app as the previous iteration left it.
	None
)

// ParseRestart reads "cold" or "none".
func ParseRestart(s string) (Restart, error) {
	switch s {
	case "cold":
		return Cold, nil
	case "none":
		return None, nil
	}
	return Cold, fmt.Errorf("restart %s: want cold or none", excerpt.Quote(s))
}

func (r Restart) String() string {
	if r == None {
		return "none"
	}
	return "cold"
}

// DefaultKeep is how many bytes of a command's output Config.Keep keeps
// per iteration by default.
const DefaultKeep = 256 << 10

// Config is how a command is run around a session. The zero value runs
// the command once as the step "iteration", the app force-stopped first.
type Config struct {
	// Package is the app the session measures, which Cold force-stops
	// (required).
	Package string
	// Step names the iterations' step (default "iteration"): the first
	// is Step, the next Step#2, Step#3, …
	Step string
	// Iterations is how many times the command runs (default 1).
	Iterations int
	// Restart is what happens to the app before each iteration.
	Restart Restart
	// Timeout bounds each iteration's command (0: none). A command past
	// it is stopped and fails its step.
	Timeout time.Duration
	// Stdout and Stderr get the command's output as it comes (nil: none).
	Stdout, Stderr io.Writer
	// Keep bounds the output kept per iteration, its first and last
	// halves (default DefaultKeep), written beside the Result as
	// <session>__<step>.log; negative keeps nothing.
	Keep int
	// Exec runs the command; nil runs it as a process of the host
	// (Process). A Go program that drives the phone itself passes its own.
	Exec func(ctx context.Context, c Command) (exit int, err error)
	// Begin, when set, is called once iteration i's step is open (i
	// counts from 0).
	Begin func(i int)
	// Progress, when set, gets a line as each iteration begins: "run:
	// iteration 2 of 5: maestro test flow.yaml".
	Progress io.Writer
}

// Command is one iteration's command as Exec gets it.
type Command struct {
	Argv []string
	// Env is the command's whole environment.
	Env            []string
	Stdout, Stderr io.Writer
}

// Iteration is how one iteration went.
type Iteration struct {
	// Step is the step's name in the Result.
	Step string
	// Exit is the command's exit status, -1 when it did not exit by
	// itself (stopped, or never started).
	Exit int
	// Failed is the line of the verdict that failed the step, "" when
	// the command exited 0.
	Failed string
	// Unfinished says a stop (ctx ending) cut the iteration short.
	Unfinished bool
	// Log is the file the command's output was kept in, "" when none.
	Log string
}

// Run runs argv (on the host, or through cfg.Exec) once per iteration,
// each iteration a step of s, on the device s measures, until the last
// iteration, the first that fails, or ctx's end. Each step keeps its
// command, exit status and output file (result.Step.Command); whatever
// fails is recorded in s's Result as a verdict; an interrupted step is
// unfinished.
func Run(ctx context.Context, s *perftest.Session, dev *adbx.Device, argv []string, cfg Config) []Iteration {
	cfg = cfg.withDefaults()
	if err := cfg.Check(); err != nil {
		line := "perfgate run: not run: " + err.Error()
		s.FailStep(cfg.Step, line)
		return []Iteration{{Step: cfg.Step, Exit: -1, Failed: line}}
	}
	var its []Iteration
	for i := range cfg.Iterations {
		if ctx.Err() != nil {
			break
		}
		name := stepName(cfg.Step, i)
		if err := cfg.restart(ctx, s, dev); err != nil {
			line := fmt.Sprintf("perfgate run %s: not run: %v", strconv.Quote(name), err)
			s.FailStep(name, line)
			its = append(its, Iteration{Step: name, Exit: -1, Failed: line})
			break
		}
		var it Iteration
		s.Step(cfg.Step, func() {
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "run: iteration %d of %d: %s\n", i+1, cfg.Iterations, strings.Join(argv, " "))
			}
			if cfg.Begin != nil {
				cfg.Begin(i)
			}
			it = cfg.once(ctx, s, dev, argv, i, name)
			if it.Unfinished {
				s.EndUnfinished()
			}
		})
		s.EditStep(name, func(st *result.Step) {
			st.Command = &result.Command{Argv: argv, Exit: it.Exit}
			if it.Log != "" {
				st.Command.Log = filepath.Base(it.Log)
			}
		})
		if it.Failed != "" && !it.Unfinished {
			s.FailStep(name, it.Failed)
		}
		its = append(its, it)
		if it.Failed != "" {
			break
		}
	}
	return its
}

// MaxIterations is the most iterations Check accepts.
const MaxIterations = 1000

// Check checks what cfg names: the package, the step (no '#' or newline),
// the iterations (up to MaxIterations) and the timeout.
func (cfg Config) Check() error {
	if err := dumpsys.ValidatePackage(cfg.Package); err != nil {
		return fmt.Errorf("package %s: %v", excerpt.Quote(cfg.Package), err)
	}
	if cfg.Step != "" && (strings.TrimSpace(cfg.Step) == "" || strings.ContainsAny(cfg.Step, "#\n")) {
		return fmt.Errorf("step %s: want a name without '#' or newlines", excerpt.Quote(cfg.Step))
	}
	if cfg.Iterations < 0 || cfg.Iterations > MaxIterations {
		return fmt.Errorf("iterations %d: want 1 to %d", cfg.Iterations, MaxIterations)
	}
	if cfg.Timeout < 0 {
		return fmt.Errorf("timeout %v is negative", cfg.Timeout)
	}
	return nil
}

func (cfg Config) withDefaults() Config {
	if cfg.Step == "" {
		cfg.Step = "iteration"
	}
	if cfg.Iterations <= 0 {
		cfg.Iterations = 1
	}
	if cfg.Keep == 0 {
		cfg.Keep = DefaultKeep
	}
	if cfg.Exec == nil {
		cfg.Exec = Process
	}
	return cfg
}

// stepName is the name perftest gives the i-th step of one name.
func stepName(step string, i int) string {
	if i == 0 {
		return step
	}
	return step + "#" + strconv.Itoa(i+1)
}

// restart force-stops the app when cfg.Restart is Cold.
func (cfg Config) restart(ctx context.Context, s *perftest.Session, dev *adbx.Device) error {
	if cfg.Restart != Cold {
		return nil
	}
	var err error
	s.Restarting(func() {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cmd := "am force-stop " + adbx.Quote(cfg.Package)
		var r adbx.Result
		if r, err = dev.Shell(c, cmd); err == nil && r.ExitCode != 0 {
			err = fmt.Errorf("%s: exit %d: %s", cmd, r.ExitCode, excerpt.Text(strings.TrimSpace(string(r.Stdout)+string(r.Stderr))))
		}
	})
	return err
}

// once runs the command of iteration i, the step name open.
func (cfg Config) once(ctx context.Context, s *perftest.Session, dev *adbx.Device, argv []string, i int, name string) Iteration {
	it := Iteration{Step: name, Exit: -1}
	keep := newKeeper(cfg.Keep)
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.Timeout > 0 {
		cctx, cancel = context.WithTimeoutCause(ctx, cfg.Timeout, fmt.Errorf("timed out after %v", cfg.Timeout))
	}
	defer cancel()
	exit, err := cfg.Exec(cctx, Command{Argv: argv, Env: Env(os.Environ(), dev, i, name),
		Stdout: tee(cfg.Stdout, keep), Stderr: tee(cfg.Stderr, keep)})
	it.Exit = exit
	if err == nil && exit == 0 {
		err = cctx.Err() // a command that ignored its stop still ran cut short
	}
	if err == nil && exit != 0 {
		err = fmt.Errorf("exit status %d", exit)
	}
	if ctx.Err() != nil {
		it.Unfinished, err = true, fmt.Errorf("interrupted: %v; the step is marked unfinished", context.Cause(ctx))
	} else if cctx.Err() != nil {
		err = context.Cause(cctx)
	}
	if cfg.Keep > 0 {
		it.Log = filepath.Join(s.ResultsDir(), filename.Of(s.Name()+"__"+name)+".log")
		if werr := keep.write(it.Log); werr != nil {
			it.Log = ""
		}
	}
	if err != nil {
		it.Failed = fmt.Sprintf("perfgate run %s: %s: %v", strconv.Quote(name), excerpt.Quote(strings.Join(argv, " ")), err)
		if it.Log != "" {
			it.Failed += " (output " + it.Log + ")"
		}
	}
	return it
}

// Failures are the lines of the iterations that failed, or were cut
// short, in order.
func Failures(its []Iteration) []string {
	var out []string
	for _, it := range its {
		if it.Failed != "" {
			out = append(out, it.Failed)
		}
	}
	return out
}

// tee writes to w, when set, and to the keeper.
func tee(w io.Writer, k *keeper) io.Writer {
	if w == nil {
		return k
	}
	return io.MultiWriter(w, k)
}

// Env is the environment of the command of iteration i (from 0), the step
// name: env without what would point adb elsewhere, and the device's
// serial and adb server, the iteration and the step.
func Env(env []string, dev *adbx.Device, i int, step string) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "ANDROID_SERIAL", "ADB_SERVER_SOCKET", "ANDROID_ADB_SERVER_ADDRESS", "ANDROID_ADB_SERVER_PORT", "PERFGATE_ITERATION", "PERFGATE_STEP":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "ANDROID_SERIAL="+dev.Serial())
	if host, port, err := net.SplitHostPort(dev.Server()); err == nil {
		out = append(out, "ADB_SERVER_SOCKET=tcp:"+dev.Server(), "ANDROID_ADB_SERVER_ADDRESS="+host, "ANDROID_ADB_SERVER_PORT="+port)
	}
	return append(out, "PERFGATE_ITERATION="+strconv.Itoa(i+1), "PERFGATE_STEP="+step)
}
