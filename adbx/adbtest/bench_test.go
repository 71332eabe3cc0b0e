package adbtest

import (
	"bytes"
	"io"
	"net"
	"testing"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// BenchmarkServerShell is one `shell:` round trip through the host-protocol
// server: connect, switch transport, run, read to EOF.
func BenchmarkServerShell(b *testing.B) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	req := append(adbwire.AppendString(nil, "host:transport:a"), adbwire.AppendString(nil, "shell:echo hi")...)
	buf := make([]byte, 64)
	for b.Loop() {
		c, err := net.Dial("tcp", s.Addr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		n, err := io.ReadFull(c, buf[:8])
		if err != nil || string(buf[:n]) != "OKAYOKAY" {
			b.Fatalf("%q %v", buf[:n], err)
		}
		out, _ := io.ReadAll(c)
		if string(out) != "hi\n" {
			b.Fatalf("%q", out)
		}
		c.Close()
	}
}

// benchAdbd opens a connection to an Adbd for benchmarks.
func benchAdbd(b *testing.B, maxData uint32) (*Adbd, net.Conn) {
	a := NewAdbd(testDevice("a"))
	b.Cleanup(a.Close)
	c, err := net.Dial("tcp", a.Addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	_, _ = c.Write(adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdCNXN, Arg0: adbwire.Version, Arg1: maxData, Data: []byte("host::\x00")}))
	if _, err := adbwire.ReadMessage(c, adbwire.MaxPayload, false); err != nil {
		b.Fatal(err)
	}
	return a, c
}

// drainStream opens svc and reads it to CLSE, acknowledging every WRTE.
func drainStream(b *testing.B, c net.Conn, id uint32, svc string) int {
	_, _ = c.Write(adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdOPEN, Arg0: id, Data: []byte(svc + "\x00")}))
	n := 0
	for {
		m, err := adbwire.ReadMessage(c, adbwire.MaxPayload, false)
		if err != nil {
			b.Fatal(err)
		}
		switch m.Command {
		case adbwire.CmdWRTE:
			n += len(m.Data)
			_, _ = c.Write(adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdOKAY, Arg0: id, Arg1: m.Arg0}))
		case adbwire.CmdCLSE:
			return n
		}
	}
}

// BenchmarkAdbdShell is one shell v2 stream on an open device connection,
// what a sampling tick costs through the stock adb server.
func BenchmarkAdbdShell(b *testing.B) {
	_, c := benchAdbd(b, adbwire.MaxPayload)
	id := uint32(0)
	for b.Loop() {
		id++
		if n := drainStream(b, c, id, "shell,v2,raw:echo hi"); n != 5+3+5+1 {
			b.Fatalf("%d bytes", n)
		}
	}
}

// BenchmarkAdbdThroughput moves 4 MiB per stream in 1 MiB WRTEs.
func BenchmarkAdbdThroughput(b *testing.B) {
	_, c := benchAdbd(b, adbwire.MaxPayload)
	const size = 4 << 20
	b.SetBytes(size)
	id := uint32(0)
	for b.Loop() {
		id++
		if n := drainStream(b, c, id, "exec:bytes 4194304"); n != size {
			b.Fatalf("%d bytes", n)
		}
	}
}

func BenchmarkReadMessage(b *testing.B) {
	in := adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdWRTE, Arg0: 1, Arg1: 2, Data: bytes.Repeat([]byte("x"), 4096)})
	r := bytes.NewReader(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Reset(in)
		if _, err := adbwire.ReadMessage(r, adbwire.MaxPayload, true); err != nil {
			b.Fatal(err)
		}
	}
}
