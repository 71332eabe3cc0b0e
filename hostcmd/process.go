package hostcmd

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// StopGrace is how long a stopped command's process group has between
// SIGTERM and SIGKILL.
const StopGrace = 10 * time.Second

// Process runs c as a process of the host, in a process group of its own,
// its stdin empty. When ctx ends the group gets SIGTERM, and SIGKILL
// StopGrace later should the command still run; the processes it left in
// the group are killed once it has ended. exit is the command's status,
// -1 when a signal ended it or it never started; err says why it did not
// exit by itself.
func Process(ctx context.Context, c Command) (exit int, err error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return -1, errors.New("no command")
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = c.Env, c.Stdout, c.Stderr
	group(cmd)
	if err := cmd.Start(); err != nil {
		return -1, err
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		signalGroup(cmd, false)
		select {
		case <-done:
		case <-time.After(StopGrace):
			signalGroup(cmd, true)
		}
	}()
	err = cmd.Wait()
	close(done)
	<-stopped
	if ctx.Err() != nil {
		// What the command started in its group goes with it.
		signalGroup(cmd, true)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), nil
	case errors.As(err, &ee):
		return -1, fmt.Errorf("ended by a signal: %v", ee.ProcessState)
	}
	return -1, err
}
