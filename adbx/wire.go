package adbx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// This file is the connection layer: a connection to the adb server that
// ends when its context does, speaking the host protocol's framing from
// internal/adbwire.

// conn is one connection to the adb server, bound to a context: when ctx
// ends, the connection is closed so any blocked read or write returns.
type conn struct {
	nc   net.Conn
	ctx  context.Context
	stop func() bool
}

// dial connects to the adb server at addr with dialer (TCP when nil); the
// connection closes when ctx ends.
func dial(ctx context.Context, dialer dialFunc, addr string) (*conn, error) {
	if dialer == nil {
		var d net.Dialer
		dialer = d.DialContext
	}
	nc, err := dialer(ctx, "tcp", addr)
	if err != nil {
		return nil, classifyDial(ctx, addr, err)
	}
	c := &conn{nc: nc, ctx: ctx}
	c.stop = context.AfterFunc(ctx, func() { nc.Close() })
	if dl, ok := ctx.Deadline(); ok {
		// The deadline also bounds I/O in case the AfterFunc races with
		// a read that has just started.
		_ = nc.SetDeadline(dl)
	}
	return c, nil
}

func classifyDial(ctx context.Context, addr string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("connect to adb server %s: %w", addr, classify(ctx, err))
	}
	return fmt.Errorf("connect to adb server %s (is it running? `adb start-server`): %w", addr, err)
}

// rebind moves the connection from its context to ctx, keeping it open. It
// reports false when the old context already ended and closed it.
func (c *conn) rebind(ctx context.Context) bool {
	if !c.stop() {
		return false
	}
	c.ctx = ctx
	nc := c.nc
	c.stop = context.AfterFunc(ctx, func() { nc.Close() })
	dl, _ := ctx.Deadline()
	_ = nc.SetDeadline(dl)
	return true
}

// Close closes the connection and releases the context hook.
func (c *conn) Close() error {
	c.stop()
	return c.nc.Close()
}

// err classifies an I/O error against the connection's context.
func (c *conn) err(err error) error { return classify(c.ctx, err) }

// request sends one host-protocol request and reads its OKAY or FAIL.
func (c *conn) request(req string) error {
	if err := c.send(req); err != nil {
		return err
	}
	return c.status(req)
}

// send writes one request.
func (c *conn) send(req string) error {
	if err := adbwire.WriteRequest(c.nc, req); err != nil {
		if len(req) > adbwire.MaxString {
			return err
		}
		return c.err(err)
	}
	return nil
}

// status reads OKAY, or FAIL and its message as an *AdbError.
func (c *conn) status(req string) error {
	ok, reason, err := adbwire.ReadStatus(c.nc)
	switch {
	case err != nil && c.ctx.Err() == nil && errors.Is(err, adbwire.ErrMalformed) && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("adb protocol: reply to %q: %w", req, err)
	case err != nil:
		return c.err(err)
	case !ok:
		return &AdbError{Request: req, Message: reason}
	}
	return nil
}

// readString reads a hex-length-prefixed string.
func (c *conn) readString() (string, error) {
	s, err := adbwire.ReadString(c.nc)
	if err != nil {
		return "", c.err(err)
	}
	return s, nil
}

// readAll reads until the peer closes the connection, at most limit
// bytes: past them it stops with errOutputLimit.
func (c *conn) readAll(limit int64) (*cappedBuffer, error) {
	b, err := readCapped(c.nc, &outputBudget{left: limit})
	if errors.Is(err, errOutputLimit) {
		return b, err
	}
	if err != nil {
		return b, c.err(err)
	}
	// A connection closed because ctx ended reads as a clean end.
	if c.ctx.Err() != nil {
		return b, c.err(net.ErrClosed)
	}
	return b, nil
}

// hostQuery sends a host request and reads its string reply, on a fresh
// connection.
func hostQuery(ctx context.Context, dialer dialFunc, addr, req string) (string, error) {
	c, err := dial(ctx, dialer, addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.request(req); err != nil {
		return "", err
	}
	return c.readString()
}

// errNoExit says a v2 stream ended without an exit packet.
var errNoExit = errors.New("shell stream ended without an exit status")

// readV2 reads a whole shell v2 session: stdout, stderr and the exit
// status. It returns errNoExit (wrapped) if the stream ended first.
func readV2(r io.Reader, stdout, stderr io.Writer) (exit int, err error) {
	v := adbwire.NewShellReader(r)
	for {
		id, data, err := v.Next()
		if err != nil {
			if err == io.EOF {
				return -1, errNoExit
			}
			return -1, err
		}
		switch id {
		case adbwire.ShellStdout:
			if _, err := stdout.Write(data); err != nil {
				return -1, err
			}
		case adbwire.ShellStderr:
			if _, err := stderr.Write(data); err != nil {
				return -1, err
			}
		case adbwire.ShellExit:
			if len(data) != 1 {
				return -1, fmt.Errorf("shell v2: exit packet of %d bytes, want 1", len(data))
			}
			return int(data[0]), nil
		default:
			// Window-size and stdin packets only flow to the device;
			// ignore anything else for forward compatibility.
		}
	}
}

// deadline gives ctx the default timeout when it has no deadline.
func deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
