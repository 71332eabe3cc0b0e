package hostcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// StopGrace is how long a stopped command's process group has between
// SIGTERM and SIGKILL.
const StopGrace = 10 * time.Second

// drainGrace bounds the wait for the last output once the command and its
// process group are gone: a process that left the group (a daemon) may
// hold the pipes open for good.
const drainGrace = 5 * time.Second

// Process runs c as a process of the host, in a process group of its own,
// its stdin empty. When ctx ends the group gets SIGTERM, and SIGKILL
// StopGrace later should the command still run. Once the command has
// ended, what it left running in its group is killed, so that nothing it
// started outlives its iteration. exit is the command's status, -1 when a
// signal ended it or it never started; err says why it did not exit by
// itself.
func Process(ctx context.Context, c Command) (exit int, err error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return -1, errors.New("no command")
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Env = c.Env
	group(cmd)
	// The output goes through pipes of this process's own, not exec's
	// copying, so that Wait returns when the command ends, whoever else
	// holds the pipes.
	drained, err := pipes(cmd, c.Stdout, c.Stderr)
	if err != nil {
		return -1, err
	}
	if err := cmd.Start(); err != nil {
		drained(true)
		return -1, err
	}
	drained(false)
	done, stopped := make(chan struct{}), make(chan struct{})
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
	signalGroup(cmd, true)
	drained(true)
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

// pipes gives cmd a pipe for each of stdout and stderr, copied to them
// (nil: discarded). Call drained(false) once the command has started, to
// close this process's write ends, and drained(true) to wait, at most
// drainGrace, for the copies to end.
func pipes(cmd *exec.Cmd, stdout, stderr io.Writer) (drained func(wait bool), err error) {
	var reads, writes []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	copied := make(chan struct{}, 2)
	for _, w := range []io.Writer{stdout, stderr} {
		r, pw, err := os.Pipe()
		if err != nil {
			closeAll(reads)
			closeAll(writes)
			return nil, err
		}
		reads, writes = append(reads, r), append(writes, pw)
		if w == nil {
			w = io.Discard
		}
		go func() {
			io.Copy(w, r)
			copied <- struct{}{}
		}()
	}
	cmd.Stdout, cmd.Stderr = writes[0], writes[1]
	return func(wait bool) {
		closeAll(writes)
		if !wait {
			return
		}
		timeout := time.After(drainGrace)
		for range 2 {
			select {
			case <-copied:
			case <-timeout:
				closeAll(reads)
				<-copied
			}
		}
		closeAll(reads)
	}, nil
}
