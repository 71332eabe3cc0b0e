package adbx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// Result is what one shell command produced.
type Result struct {
	Stdout []byte
	// Stderr is the command's standard error. On a device without the
	// shell_v2 feature (Android 6 and older) stderr is merged into Stdout
	// and Stderr is empty.
	Stderr   []byte
	ExitCode int
}

// Err returns an error quoting the command's stderr (else stdout) when its
// exit status is not 0, and nil otherwise.
func (r Result) Err(cmd string) error {
	if r.ExitCode == 0 {
		return nil
	}
	out := r.Stderr
	if len(bytes.TrimSpace(out)) == 0 {
		out = r.Stdout
	}
	return &ExitError{Cmd: cmd, Code: r.ExitCode, Output: string(clip(bytes.TrimSpace(out)))}
}

// ExitError is a command that ran and exited with a non-zero status.
type ExitError struct {
	Cmd    string
	Code   int
	Output string // the start of its stderr, else stdout
}

// Error names the command, its exit status and the start of its output,
// as in "getprop ro.build.version.sdk: exit status 127: /system/bin/sh:
// getprop: inaccessible or not found". Text that is not one printable line
// is quoted.
func (e *ExitError) Error() string {
	if e.Output == "" {
		return fmt.Sprintf("%s: exit status %d (no output)", plain(e.Cmd), e.Code)
	}
	return fmt.Sprintf("%s: exit status %d: %s", plain(e.Cmd), e.Code, plain(e.Output))
}

// plain shortens device text for an error message and quotes it unless it
// is one line of printable text.
func plain(s string) string {
	s = string(clip([]byte(s)))
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// v2 says whether the device speaks the shell v2 protocol (separate
// stderr and an exit status).
func (d *Device) v2() bool { return d.features["shell_v2"] }

// Shell runs cmd with the device's /system/bin/sh and returns its output
// and exit status; a non-zero exit is not an error. cmd is shell source:
// quote anything a user passed in with Quote. The call ends at ctx's
// deadline (else Options.Timeout) with ErrTimeout.
//
// cmd reaches the device verbatim. Its stdin is open but never written, so
// a command that reads stdin waits for its deadline: add </dev/null. (No
// close-stdin packet is sent: written after a quick command has ended, it
// can make the server reset the connection and lose the output.)
func (d *Device) Shell(ctx context.Context, cmd string) (Result, error) {
	start := time.Now()
	r, err := d.shell(ctx, cmd)
	return r, timeoutNote(start, err)
}

func (d *Device) shell(ctx context.Context, cmd string) (Result, error) {
	if strings.TrimSpace(cmd) == "" {
		return Result{}, fmt.Errorf("adbx shell %s: empty command", d.serial)
	}
	ctx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	if !d.v2() {
		// Without v2 the exit status is lost, so run the command as a
		// batch of one, whose separator carries it.
		rs, err := d.batch(ctx, []string{cmd})
		if err != nil {
			return Result{}, fmt.Errorf("adbx shell %s %s: %w", d.serial, quoteCmd(cmd), err)
		}
		return rs[0], nil
	}
	out, errb := d.outputs()
	code, err := d.runV2(ctx, cmd, out, errb)
	if errors.Is(err, errOutputLimit) {
		return Result{}, fmt.Errorf("adbx shell %s: %w", d.serial, &OutputError{Cmd: cmd, Limit: d.outputLimit()})
	}
	if err != nil {
		return Result{}, fmt.Errorf("adbx shell %s %s: %w", d.serial, quoteCmd(cmd), err)
	}
	return Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: code}, nil
}

// outputs are the writers of one call's stdout and stderr, which share
// the device's bound (Options.MaxOutput).
func (d *Device) outputs() (stdout, stderr *cappedBuffer) {
	budget := &outputBudget{left: d.outputLimit()}
	return &cappedBuffer{budget: budget}, &cappedBuffer{budget: budget}
}

// outputLimit is Options.MaxOutput, else DefaultMaxOutput.
func (d *Device) outputLimit() int64 {
	if d.maxOutput > 0 {
		return d.maxOutput
	}
	return DefaultMaxOutput
}

// runV2 runs cmd over shell,v2,raw: and returns its exit status.
func (d *Device) runV2(ctx context.Context, cmd string, stdout, stderr io.Writer) (int, error) {
	c, err := d.service(ctx, "shell,v2,raw:"+cmd)
	if err != nil {
		return -1, err
	}
	defer c.Close()
	code, err := readV2(c.nc, stdout, stderr)
	if err != nil {
		if errors.Is(err, errNoExit) && c.ctx.Err() == nil {
			return -1, fmt.Errorf("%w: %w", ErrDeviceGone, err)
		}
		return -1, c.err(err)
	}
	return code, nil
}

// Batch runs cmds, in order, in one shell session: one round trip however
// many commands. Each command runs in its own subshell with stdin from
// /dev/null, so one command's exit or cd does not touch the next, and gets
// its own Result with stdout, stderr and exit status split exactly. On
// error, the Results of the commands that finished are returned with it.
func (d *Device) Batch(ctx context.Context, cmds []string) ([]Result, error) {
	start := time.Now()
	rs, err := d.batchCall(ctx, cmds)
	return rs, timeoutNote(start, err)
}

func (d *Device) batchCall(ctx context.Context, cmds []string) ([]Result, error) {
	if len(cmds) == 0 {
		return nil, nil
	}
	ctx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	rs, err := d.batch(ctx, cmds)
	if err != nil {
		return rs, fmt.Errorf("adbx batch %s (%d commands, first %s): %w", d.serial, len(cmds), quoteCmd(cmds[0]), err)
	}
	return rs, nil
}

func (d *Device) batch(ctx context.Context, cmds []string) ([]Result, error) {
	for i, c := range cmds {
		if strings.IndexByte(c, 0) >= 0 {
			return nil, fmt.Errorf("command %d %s holds a NUL byte", i+1, quoteCmd(c))
		}
	}
	v2 := d.v2()
	script := batchScript(cmds, v2, uuidPath)
	if v2 {
		out, errb := d.outputs()
		code, err := d.runV2(ctx, script, out, errb)
		if err != nil {
			// Keep the commands that finished before the failure.
			rs, _ := splitBatch(finished(out, err), finished(errb, err), len(cmds), true)
			return rs, fmt.Errorf("%w (%d of %d commands finished)", d.outputErr(err, cmds, len(rs)), len(rs), len(cmds))
		}
		rs, err := splitBatch(out.Bytes(), errb.Bytes(), len(cmds), true)
		if err != nil {
			return rs, fmt.Errorf("shell exited %d: %w (stderr %q)", code, err, clip(errb.Bytes()))
		}
		return rs, nil
	}
	c, err := d.service(ctx, "shell:"+script)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out, rerr := c.readAll(d.outputLimit())
	rs, err := splitBatch(finished(out, rerr), nil, len(cmds), false)
	if rerr != nil {
		return rs, fmt.Errorf("%w (%d of %d commands finished)", d.outputErr(rerr, cmds, len(rs)), len(rs), len(cmds))
	}
	if err != nil {
		if errors.Is(err, errBatchShort) {
			// Without v2 a session that ends early looks like any other
			// end of stream: the device or the shell went away.
			return rs, fmt.Errorf("%w: %w", ErrDeviceGone, err)
		}
		return rs, err
	}
	return rs, nil
}

// finished is a batch's output in b as far as splitBatch needs it: all of
// it, or, when err says the bound was passed, up to the last separator
// (the commands that finished), without joining what the command that
// passed it printed.
func finished(b *cappedBuffer, err error) []byte {
	if !errors.Is(err, errOutputLimit) {
		return b.Bytes()
	}
	first := b.head(min(b.n, 128))
	i := bytes.IndexByte(first, '\n')
	if i < 0 {
		return first
	}
	return b.through(append(append([]byte{'\n'}, first[:i]...), ' '))
}

// outputErr is err, or the *OutputError of the command of a batch that
// was printing (the first that did not finish) when the call's bound was
// passed.
func (d *Device) outputErr(err error, cmds []string, finished int) error {
	if !errors.Is(err, errOutputLimit) {
		return err
	}
	return &OutputError{Cmd: cmds[min(finished, len(cmds)-1)], Limit: d.outputLimit()}
}

// timeoutNote adds how long a call that timed out had run.
func timeoutNote(start time.Time, err error) error {
	if err != nil && errors.Is(err, ErrTimeout) {
		return fmt.Errorf("%w (no answer within %v)", err, time.Since(start).Round(time.Millisecond))
	}
	return err
}

// Stream runs cmd and returns its standard output as it is produced, for
// commands that run until stopped (logcat, top -d). Closing the reader, or
// ctx ending, stops the command. Options.Timeout bounds only opening the
// stream, not reading it. Under shell v2, stderr is kept aside, a non-zero
// exit shows up as an *ExitError from Read instead of io.EOF, and a
// dropped device as ErrDeviceGone; without v2 both read as io.EOF.
func (d *Device) Stream(ctx context.Context, cmd string) (io.ReadCloser, error) {
	if strings.TrimSpace(cmd) == "" {
		return nil, fmt.Errorf("adbx stream %s: empty command", d.serial)
	}
	openCtx, cancel := deadline(ctx, d.timeout)
	defer cancel()
	v2 := d.v2()
	name := "shell:" + cmd
	if v2 {
		name = "shell,v2,raw:" + cmd
	}
	c, err := d.service(openCtx, name)
	if err != nil {
		return nil, fmt.Errorf("adbx stream %s %s: %w", d.serial, quoteCmd(cmd), err)
	}
	// The open deadline no longer applies once the stream is up.
	if !c.rebind(ctx) {
		c.Close()
		return nil, fmt.Errorf("adbx stream %s %s: %w", d.serial, quoteCmd(cmd), classify(openCtx, net.ErrClosed))
	}
	s := &stream{c: c, cmd: cmd, serial: d.serial}
	if v2 {
		s.v2 = adbwire.NewShellReader(c.nc)
	}
	return s, nil
}

// stream is the reader Stream returns.
type stream struct {
	c      *conn
	cmd    string
	serial string
	v2     *adbwire.ShellReader
	pend   []byte // stdout data not yet returned, valid until v2.Next
	stderr []byte // the last bytes of stderr, for the exit error
	done   error  // sticky end of the stream

	mu     sync.Mutex
	closed bool
}

func (s *stream) Read(p []byte) (int, error) {
	if s.done != nil {
		return 0, s.done
	}
	if s.v2 == nil {
		n, err := s.c.nc.Read(p)
		if err != nil {
			s.done = s.end(err)
			if n > 0 {
				return n, nil
			}
			return 0, s.done
		}
		return n, nil
	}
	for len(s.pend) == 0 {
		id, data, err := s.v2.Next()
		if err != nil {
			if err == io.EOF {
				err = errNoExit
			}
			s.done = s.end(err)
			return 0, s.done
		}
		switch id {
		case adbwire.ShellStdout:
			s.pend = data
		case adbwire.ShellStderr:
			s.stderr = append(s.stderr, data...)
			if len(s.stderr) > 4096 {
				s.stderr = append(s.stderr[:0], s.stderr[len(s.stderr)-4096:]...)
			}
		case adbwire.ShellExit:
			code := 0
			if len(data) == 1 {
				code = int(data[0])
			}
			if code != 0 {
				s.done = fmt.Errorf("adbx stream %s: %w", s.serial, Result{Stderr: s.stderr, ExitCode: code}.Err(s.cmd))
			} else {
				s.done = io.EOF
			}
			return 0, s.done
		}
	}
	n := copy(p, s.pend)
	s.pend = s.pend[n:]
	return n, nil
}

// end turns the error that ended a stream into what Read reports.
func (s *stream) end(err error) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case closed:
		return fmt.Errorf("adbx stream %s %s: %w", s.serial, quoteCmd(s.cmd), net.ErrClosed)
	case s.c.ctx.Err() != nil:
		return fmt.Errorf("adbx stream %s %s: %w", s.serial, quoteCmd(s.cmd), classify(s.c.ctx, err))
	case s.v2 == nil && errors.Is(err, io.EOF):
		return io.EOF
	case errors.Is(err, errNoExit):
		return fmt.Errorf("adbx stream %s %s: %w: %w", s.serial, quoteCmd(s.cmd), ErrDeviceGone, err)
	}
	return fmt.Errorf("adbx stream %s %s: %w", s.serial, quoteCmd(s.cmd), classify(s.c.ctx, err))
}

// Close stops the command and releases the connection.
func (s *stream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return s.c.Close()
}

// LogcatTimeLayout is how logcat -T takes a start time.
const LogcatTimeLayout = "01-02 15:04:05.000"

// Logcat streams `logcat -v threadtime` output. A zero since starts at the
// newest entry already logged (-T 1) and follows what comes next; otherwise since is
// passed as -T 'MM-DD hh:mm:ss.mmm' in since's own location, so pass a time
// in the device's time zone. args are extra logcat arguments (e.g. "-b",
// "main", "ActivityManager:I", "*:S"), each quoted for the device shell.
func (d *Device) Logcat(ctx context.Context, since time.Time, args ...string) (io.ReadCloser, error) {
	cmd := "logcat -v threadtime"
	if since.IsZero() {
		cmd += " -T 1"
	} else {
		cmd += " -T " + Quote(since.Format(LogcatTimeLayout))
	}
	for _, a := range args {
		cmd += " " + Quote(a)
	}
	return d.Stream(ctx, cmd)
}
