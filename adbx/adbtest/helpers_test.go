package adbtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// echoPort is a device port handler that sends back what it receives.
func echoPort(c net.Conn) { _, _ = io.Copy(c, c) }

// testDevice is a FakeDevice with the handlers the tests use.
func testDevice(serial string) *FakeDevice {
	return &FakeDevice{
		SerialNo: serial,
		Commands: map[string]FakeResult{
			"echo hi":       {Stdout: "hi\n"},
			"split":         {Stdout: "to stdout\n", Stderr: "to stderr\n", Exit: 3},
			"getprop ro.sf": {Stdout: "60\n"},
		},
		Handler: func(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
			switch {
			case cmd == "cat":
				if stdin == nil {
					return 1
				}
				_, _ = io.Copy(stdout, stdin)
				return 0
			case strings.HasPrefix(cmd, "block"):
				<-ctx.Done()
				return 130
			case strings.HasPrefix(cmd, "bytes "):
				var n int
				for _, c := range strings.TrimPrefix(cmd, "bytes ") {
					n = n*10 + int(c-'0')
				}
				_, _ = stdout.Write(pattern(n))
				return 0
			case strings.HasPrefix(cmd, "echo "):
				_, _ = io.WriteString(stdout, strings.TrimPrefix(cmd, "echo ")+"\n")
				return 0
			}
			_, _ = io.WriteString(stderr, "sh: "+cmd+": not found\n")
			return 127
		},
		Ports: map[int]func(net.Conn){6790: echoPort},
	}
}

// pattern is n bytes that are not all alike, so that a shifted or
// truncated copy shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// hostConn is a raw host-protocol client.
type hostConn struct {
	t *testing.T
	net.Conn
}

func dialHost(t *testing.T, s *Server) *hostConn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return &hostConn{t, c}
}

func (c *hostConn) send(req string) {
	c.t.Helper()
	if _, err := c.Write(adbwire.AppendString(nil, req)); err != nil {
		c.t.Fatal(err)
	}
}

// status reads OKAY, or FAIL and its message.
func (c *hostConn) status() (ok bool, msg string) {
	c.t.Helper()
	b := c.readN(4)
	switch string(b) {
	case "OKAY":
		return true, ""
	case "FAIL":
		return false, c.hexString()
	}
	c.t.Fatalf("status %q, want OKAY or FAIL", b)
	return false, ""
}

func (c *hostConn) okay() {
	c.t.Helper()
	if ok, msg := c.status(); !ok {
		c.t.Fatalf("FAIL %q, want OKAY", msg)
	}
}

func (c *hostConn) hexString() string {
	c.t.Helper()
	s, err := adbwire.ReadString(c)
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

func (c *hostConn) readN(n int) []byte {
	c.t.Helper()
	b := make([]byte, n)
	if _, err := io.ReadFull(c, b); err != nil {
		c.t.Fatalf("reading %d bytes: %v", n, err)
	}
	return b
}

// shellV2Result collects a shell v2 session's packets.
type shellV2Result struct {
	stdout, stderr bytes.Buffer
	exit           int // -1: no exit packet
}

func readShellV2(t *testing.T, r io.Reader) shellV2Result {
	t.Helper()
	res := shellV2Result{exit: -1}
	packets := adbwire.NewShellReader(r)
	for {
		id, data, err := packets.Next()
		if err != nil {
			return res
		}
		switch id {
		case adbwire.ShellStdout:
			res.stdout.Write(data)
		case adbwire.ShellStderr:
			res.stderr.Write(data)
		case adbwire.ShellExit:
			if len(data) != 1 {
				t.Fatalf("exit packet of %d bytes", len(data))
			}
			res.exit = int(data[0])
		default:
			t.Fatalf("unexpected shell packet id %d", id)
		}
	}
}

// adbdConnClient is a raw device-protocol client, as the adb server is.
type adbdClient struct {
	t *testing.T
	net.Conn
	nextID uint32
}

func dialAdbd(t *testing.T, a *Adbd) *adbdClient {
	t.Helper()
	c, err := net.Dial("tcp", a.Addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	t.Cleanup(func() { c.Close() })
	return &adbdClient{t: t, Conn: c}
}

func (c *adbdClient) send(cmd, arg0, arg1 uint32, data []byte) {
	c.t.Helper()
	if _, err := c.Write(adbwire.AppendMessage(nil, adbwire.Message{Command: cmd, Arg0: arg0, Arg1: arg1, Data: data})); err != nil {
		c.t.Fatal(err)
	}
}

func (c *adbdClient) read() adbwire.Message {
	c.t.Helper()
	m, err := adbwire.ReadMessage(c, adbwire.MaxPayload, true)
	if err != nil {
		c.t.Fatalf("reading a message: %v", err)
	}
	return m
}

// connect performs the handshake offering maxData and returns the reply.
func (c *adbdClient) connect(maxData uint32) adbwire.Message {
	c.t.Helper()
	c.send(adbwire.CmdCNXN, adbwire.Version, maxData, []byte("host::features=shell_v2,cmd,stat_v2\x00"))
	m := c.read()
	if m.Command != adbwire.CmdCNXN {
		c.t.Fatalf("handshake reply %v, want CNXN", m)
	}
	return m
}

// open opens a service and returns the host and device stream ids; the
// device id is 0 if it refused.
func (c *adbdClient) open(name string) (local, remote uint32) {
	c.t.Helper()
	c.nextID++
	local = c.nextID
	c.send(adbwire.CmdOPEN, local, 0, []byte(name+"\x00"))
	m := c.read()
	switch {
	case m.Command == adbwire.CmdOKAY && m.Arg1 == local:
		return local, m.Arg0
	case m.Command == adbwire.CmdCLSE && m.Arg1 == local:
		return local, 0
	}
	c.t.Fatalf("OPEN %q answered with %v", name, m)
	return 0, 0
}

// drain reads one stream to its CLSE, acknowledging each WRTE.
func (c *adbdClient) drain(local, remote uint32) []byte {
	c.t.Helper()
	var out []byte
	for {
		m := c.read()
		if m.Arg1 != local {
			c.t.Fatalf("message %v for another stream", m)
		}
		switch m.Command {
		case adbwire.CmdWRTE:
			out = append(out, m.Data...)
			c.send(adbwire.CmdOKAY, local, remote, nil)
		case adbwire.CmdCLSE:
			return out
		default:
			c.t.Fatalf("unexpected %v", m)
		}
	}
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
