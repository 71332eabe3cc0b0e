package hostcmd

import (
	"errors"
	"flag"
	"fmt"
	"os/exec"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// RegisterFlags registers on fs the flags of a command run (-app,
// -iterations, -step, -restart, -timeout) and returns the function that
// reads them, once fs is parsed, into a checked Config, and checks the
// command argv: there is one, and its program is found (PATH is searched
// for a name without a slash), so that a typo fails before anything is
// measured.
func RegisterFlags(fs *flag.FlagSet) func(argv []string) (Config, error) {
	var cfg Config
	fs.StringVar(&cfg.Package, "app", "", "the app's package (required)")
	fs.IntVar(&cfg.Iterations, "iterations", 1, fmt.Sprintf("times the command runs, 1 to %d, each a step", MaxIterations))
	fs.StringVar(&cfg.Step, "step", "iteration", "the iterations' step: `name`, name#2, …")
	restart := fs.String("restart", "cold", "before each iteration: cold (force-stop the app) or none")
	fs.DurationVar(&cfg.Timeout, "timeout", 0, "longest an iteration's command may run (0: no limit)")
	return func(argv []string) (Config, error) {
		if len(argv) == 0 || argv[0] == "" {
			return cfg, errors.New("no command after --")
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return cfg, fmt.Errorf("command %s: %v", excerpt.Quote(argv[0]), err)
		}
		var err error
		if cfg.Restart, err = ParseRestart(*restart); err != nil {
			return cfg, err
		}
		if cfg.Iterations < 1 {
			return cfg, fmt.Errorf("iterations %d: want 1 to %d", cfg.Iterations, MaxIterations)
		}
		return cfg, cfg.Check()
	}
}
