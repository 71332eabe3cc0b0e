package adbx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// This file is the wire layer: the adb host protocol's framing (a request
// is four hex digits of length then the bytes; a reply starts with OKAY or
// FAIL plus a hex-length message), and a connection that ends when its
// context does.

// maxRequest is the longest request the 4-hex-digit length prefix can say.
const maxRequest = 0xffff

// conn is one connection to the adb server, bound to a context: when ctx
// ends, the connection is closed so any blocked read or write returns.
type conn struct {
	nc   net.Conn
	ctx  context.Context
	stop func() bool
}

// dial connects to the adb server at addr; the connection closes when ctx
// ends.
func dial(ctx context.Context, addr string) (*conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
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

// send writes one request: its length in four hex digits, then the bytes.
func (c *conn) send(req string) error {
	if len(req) > maxRequest {
		return fmt.Errorf("request of %d bytes is longer than adb's limit of %d", len(req), maxRequest)
	}
	b := make([]byte, 0, 4+len(req))
	b = fmt.Appendf(b, "%04x", len(req))
	b = append(b, req...)
	if _, err := c.nc.Write(b); err != nil {
		return c.err(err)
	}
	return nil
}

// status reads OKAY, or FAIL and its message as an *AdbError.
func (c *conn) status(req string) error {
	var st [4]byte
	if _, err := io.ReadFull(c.nc, st[:]); err != nil {
		return c.err(err)
	}
	switch string(st[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := c.readString()
		if err != nil {
			return err
		}
		return &AdbError{Request: req, Message: msg}
	}
	return fmt.Errorf("adb protocol: reply to %q starts with %q, want OKAY or FAIL", req, st[:])
}

// readString reads a hex-length-prefixed string.
func (c *conn) readString() (string, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
		return "", c.err(err)
	}
	n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("adb protocol: bad length %q", hdr[:])
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.nc, b); err != nil {
		return "", c.err(err)
	}
	return string(b), nil
}

// readAll reads until the peer closes the connection.
func (c *conn) readAll() ([]byte, error) {
	b, err := io.ReadAll(c.nc)
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
func hostQuery(ctx context.Context, addr, req string) (string, error) {
	c, err := dial(ctx, addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.request(req); err != nil {
		return "", err
	}
	return c.readString()
}

// Shell protocol v2 packet ids (adb's shell_protocol.h).
const (
	v2Stdin       = 0
	v2Stdout      = 1
	v2Stderr      = 2
	v2Exit        = 3
	v2CloseStdin  = 4
	v2WindowSize  = 5
	v2HeaderBytes = 5
	// v2MaxPacket bounds a packet's payload: adbd sends at most its
	// buffer size, far below this, so anything larger is corruption.
	v2MaxPacket = 1 << 24
)

// errNoExit says a v2 stream ended without an exit packet.
var errNoExit = errors.New("shell stream ended without an exit status")

// v2Reader decodes a shell v2 packet stream.
type v2Reader struct {
	r   io.Reader
	hdr [v2HeaderBytes]byte
}

// next reads one packet; the returned data is valid until the next call
// only when buf is reused by the caller.
func (v *v2Reader) next(buf []byte) (id byte, data []byte, err error) {
	if _, err := io.ReadFull(v.r, v.hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, nil, io.EOF
		}
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(v.hdr[1:])
	if n > v2MaxPacket {
		return 0, nil, fmt.Errorf("shell v2: packet of %d bytes (id %d) is too large", n, v.hdr[0])
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(v.r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return v.hdr[0], buf, nil
}

// readV2 reads a whole shell v2 session: stdout, stderr and the exit
// status. It returns errNoExit (wrapped) if the stream ended first.
func readV2(r io.Reader, stdout, stderr io.Writer) (exit int, err error) {
	v := v2Reader{r: r}
	var buf []byte // grown to the largest packet seen
	for {
		id, data, err := v.next(buf)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return -1, errNoExit
			}
			return -1, err
		}
		if cap(data) > cap(buf) {
			buf = data
		}
		switch id {
		case v2Stdout:
			if _, err := stdout.Write(data); err != nil {
				return -1, err
			}
		case v2Stderr:
			if _, err := stderr.Write(data); err != nil {
				return -1, err
			}
		case v2Exit:
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

// appendV2 appends one shell v2 packet to b.
func appendV2(b []byte, id byte, data []byte) []byte {
	b = append(b, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// deadline gives ctx the default timeout when it has no deadline.
func deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
