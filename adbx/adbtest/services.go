package adbtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// This file is the device side shared by both endpoints: what a stream does
// once a client opened `shell:`, `exec:`, `sync:` or `tcp:` on a device.

// errUnknownService is the reason given for a service the device lacks.
var errUnknownService = errors.New("unknown service")

// service is a device service ready to run on an accepted stream.
type service struct {
	// run serves the stream and closes rw when it is done.
	run func(rw io.ReadWriteCloser)
	// release, if set, frees what opening took (a tcp: service's device
	// connection) when the stream will not run after all.
	release func()
}

// abandon gives up a service that was opened but will not run.
func (s service) abandon() {
	if s.release != nil {
		s.release()
	}
}

// openService decides whether dev offers the service name and prepares it.
// The error, if any, is what the client is told. ctx ends when the endpoint
// stops serving dev; the service must then return soon.
func openService(ctx context.Context, dev Device, name string) (service, error) {
	switch {
	case strings.HasPrefix(name, "shell:") || strings.HasPrefix(name, "shell,"):
		opts, cmd, _ := strings.Cut(name, ":")
		v2 := false
		for _, o := range strings.Split(opts, ",")[1:] {
			if o == "v2" {
				v2 = true
			}
		}
		if v2 && !hasFeature(dev, "shell_v2") {
			return service{}, fmt.Errorf("%w %q: the device does not offer shell_v2", errUnknownService, opts)
		}
		if cmd == "" {
			return service{run: func(rw io.ReadWriteCloser) { serveInteractive(ctx, dev, v2, rw) }}, nil
		}
		return service{run: func(rw io.ReadWriteCloser) { serveShell(ctx, dev, cmd, v2, rw) }}, nil
	case strings.HasPrefix(name, "exec:"):
		cmd := strings.TrimPrefix(name, "exec:")
		return service{run: func(rw io.ReadWriteCloser) { serveShell(ctx, dev, cmd, false, rw) }}, nil
	case name == "sync:":
		return service{run: func(rw io.ReadWriteCloser) { serveSync(dev, rw) }}, nil
	case strings.HasPrefix(name, "tcp:"):
		port, err := parseTCPService(strings.TrimPrefix(name, "tcp:"))
		if err != nil {
			return service{}, err
		}
		conn, err := dev.DialTCP(ctx, port)
		if err != nil {
			return service{}, fmt.Errorf("cannot connect to device port %d: %w", port, err)
		}
		return service{run: func(rw io.ReadWriteCloser) { pump(rw, conn) }, release: func() { conn.Close() }}, nil
	}
	return service{}, fmt.Errorf("%w %q", errUnknownService, name)
}

// parseTCPService reads the `<port>` or `localhost:<port>` of a tcp: service.
func parseTCPService(spec string) (int, error) {
	if host, p, ok := strings.Cut(spec, ":"); ok {
		if host != "localhost" && host != "127.0.0.1" {
			return 0, fmt.Errorf("tcp:%s: only device-local ports are simulated", spec)
		}
		spec = p
	}
	port, err := strconv.Atoi(spec)
	if err != nil || port < 1 || port > 65535 {
		return 0, fmt.Errorf("tcp:%s: bad port %q", spec, spec)
	}
	return port, nil
}

func hasFeature(dev Device, name string) bool {
	for _, f := range dev.Features() {
		if f == name {
			return true
		}
	}
	return false
}

// pump copies both ways between a and b until either side ends, then
// closes both, as adb tears down a forwarded connection.
func pump(a, b io.ReadWriteCloser) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(a, b); done <- struct{}{} }()
	go func() { _, _ = io.Copy(b, a); done <- struct{}{} }()
	<-done
	a.Close()
	b.Close()
	<-done
}

// serveShell runs one command. Without v2 (shell: and exec:) stdout and
// stderr share the raw stream and the client learns no exit status; with v2
// every chunk is a packet and the last one carries the status.
func serveShell(ctx context.Context, dev Device, cmd string, v2 bool, rw io.ReadWriteCloser) {
	defer rw.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdin := newStdinPipe()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		// The client going away ends the command, as adbd kills the
		// process when its socket closes.
		defer cancel()
		defer stdin.CloseWrite()
		readStdin(rw, v2, stdin)
	}()
	w := &streamWriter{w: rw}
	var stdout, stderr io.Writer = w, w
	if v2 {
		stdout = &packetWriter{w: w, id: adbwire.ShellStdout}
		stderr = &packetWriter{w: w, id: adbwire.ShellStderr}
	}
	code := dev.Shell(ctx, cmd, stdin, stdout, stderr)
	stdin.Close()
	if v2 {
		_, _ = w.Write(adbwire.AppendShellPacket(nil, adbwire.ShellExit, []byte{byte(code)}))
	}
	rw.Close()
	<-readerDone
}

// readStdin feeds what the client sends into stdin until the stream ends.
func readStdin(r io.Reader, v2 bool, stdin *stdinPipe) {
	if !v2 {
		// Commands rarely get much input; a small buffer keeps a round
		// trip cheap.
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if _, werr := stdin.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	packets := adbwire.NewShellReader(r)
	for {
		id, data, err := packets.Next()
		if err != nil {
			return
		}
		switch id {
		case adbwire.ShellStdin:
			if _, err := stdin.Write(data); err != nil {
				return
			}
		case adbwire.ShellCloseStdin:
			stdin.CloseWrite()
		}
		// Window sizes and unknown packets do not concern a raw command.
	}
}

// streamWriter serializes writes of stdout and stderr to one stream.
type streamWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// maxShellChunk is the largest shell v2 payload written at once, so that
// clients with small read buffers cope.
const maxShellChunk = 64 << 10

// packetWriter wraps writes in shell v2 packets of one id.
type packetWriter struct {
	w   *streamWriter
	id  byte
	buf []byte // the last packet, reused: a command's writes are serialised
}

func (p *packetWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		chunk := b[:min(len(b), maxShellChunk)]
		p.buf = adbwire.AppendShellPacket(p.buf[:0], p.id, chunk)
		if _, err := p.w.Write(p.buf); err != nil {
			return n, err
		}
		n += len(chunk)
		b = b[len(chunk):]
	}
	return n, nil
}

// maxStdinBuffer bounds what a command that does not read its stdin can
// make the endpoint hold for it.
const maxStdinBuffer = 16 << 20

// stdinPipe is a buffered pipe: writes do not wait for the command to read,
// so the endpoint keeps reading its stream and notices when the client goes.
type stdinPipe struct {
	mu     sync.Mutex
	cond   sync.Cond
	buf    []byte
	eof    bool // no more input will come
	closed bool // the reader is gone
}

func newStdinPipe() *stdinPipe {
	p := &stdinPipe{}
	p.cond.L = &p.mu
	return p
}

func (p *stdinPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) >= maxStdinBuffer && !p.closed && !p.eof {
		p.cond.Wait()
	}
	if p.closed || p.eof {
		return 0, io.ErrClosedPipe
	}
	p.buf = append(p.buf, b...)
	p.cond.Broadcast()
	return len(b), nil
}

func (p *stdinPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.eof && !p.closed {
		p.cond.Wait()
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	p.cond.Broadcast()
	return n, nil
}

// CloseWrite marks the end of input.
func (p *stdinPipe) CloseWrite() {
	p.mu.Lock()
	p.eof = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Close discards unread input and releases a blocked writer.
func (p *stdinPipe) Close() error {
	p.mu.Lock()
	p.closed = true
	p.buf = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}

// serveInteractive is `adb shell` without a command: a minimal terminal
// session that echoes what is typed, runs each line, and ends on `exit` or
// Ctrl-D. The client's terminal is raw, so the device echoes and turns
// "\n" into "\r\n" as a pty would.
func serveInteractive(ctx context.Context, dev Device, v2 bool, rw io.ReadWriteCloser) {
	defer rw.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdin := newStdinPipe()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer cancel()
		defer stdin.CloseWrite()
		readStdin(rw, v2, stdin)
	}()
	w := &streamWriter{w: rw}
	var out io.Writer = w
	if v2 {
		out = &packetWriter{w: w, id: adbwire.ShellStdout}
	}
	term := &crlfWriter{w: out}
	code := 0
	const prompt = "$ "
	_, _ = io.WriteString(out, prompt)
	var line []byte
	b := make([]byte, 1)
loop:
	for {
		if _, err := stdin.Read(b); err != nil {
			break
		}
		switch c := b[0]; c {
		case '\r', '\n':
			_, _ = io.WriteString(out, "\r\n")
			cmd := strings.TrimSpace(string(line))
			line = line[:0]
			if cmd == "exit" || strings.HasPrefix(cmd, "exit ") {
				code, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(cmd, "exit")))
				break loop
			}
			if cmd != "" {
				code = dev.Shell(ctx, cmd, nil, term, term)
			}
			_, _ = io.WriteString(out, prompt)
		case 0x04: // Ctrl-D
			if len(line) == 0 {
				break loop
			}
		case 0x7f, '\b':
			if len(line) > 0 {
				line = line[:len(line)-1]
				_, _ = io.WriteString(out, "\b \b")
			}
		case 0x03: // Ctrl-C
			line = line[:0]
			_, _ = io.WriteString(out, "^C\r\n"+prompt)
		default:
			line = append(line, c)
			_, _ = out.Write(b)
		}
	}
	stdin.Close()
	if v2 {
		_, _ = w.Write(adbwire.AppendShellPacket(nil, adbwire.ShellExit, []byte{byte(code)}))
	}
	rw.Close()
	<-readerDone
}

// crlfWriter turns "\n" into "\r\n", as a pty's ONLCR does.
type crlfWriter struct{ w io.Writer }

func (c *crlfWriter) Write(p []byte) (int, error) {
	if _, err := c.w.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}
