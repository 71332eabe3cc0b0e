package adbtest

import (
	"bytes"
	"io"
	"maps"
	"net"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// Seeds are real exchanges: what the stock adb 29 client and server and
// gadb send, as captured by a logging proxy in front of these endpoints.

// syncRequest encodes a sync request.
func syncRequest(id, arg string) []byte {
	return adbwire.AppendSync(nil, id, uint32(len(arg)), []byte(arg))
}

type fuzzStream struct {
	io.Reader
	io.Writer
}

func (fuzzStream) Close() error { return nil }

func FuzzSync(f *testing.F) {
	f.Add(append(syncRequest("STA2", "/sdcard/missing"), syncRequest("QUIT", "")...))
	f.Add(syncRequest("LIST", "/sdcard"))
	f.Add(syncRequest("LIS2", "/sdcard"))
	f.Add(syncRequest("STAT", "/sdcard/notes.txt"))
	f.Add(syncRequest("RECV", "/sdcard/Download/a.bin"))
	send := syncRequest("SEND", "/data/local/tmp/x,33188")
	send = append(send, syncRequest("DATA", "hello")...)
	send = append(send, "DONE\x10\x00\x00\x00"...)
	f.Add(send)
	f.Add([]byte("SEND\xff\xff\xff\xff"))
	proto := gadbDevice("fuzz")
	f.Fuzz(func(t *testing.T, in []byte) {
		// Pushes replace map entries and never write into them, so a
		// shallow copy keeps iterations apart.
		dev := &FakeDevice{Files: maps.Clone(proto.Files)}
		var out bytes.Buffer
		serveSync(dev, fuzzStream{bytes.NewReader(in), &out})
	})
}

func FuzzServerConn(f *testing.F) {
	for _, s := range []string{
		"000chost:version",
		"0017host:tport:serial:sim-1" + "0019shell,v2,raw:echo hi" + "\x04\x00\x00\x00\x00",
		"0012host:transport:sim-1" + "0005sync:" + string(syncRequest("LIST", "/sdcard")),
		"0012host:transport:sim-1" + "000dshell:echo hi",
		"0026host-serial:sim-1:forward:tcp:0;tcp:6790",
		"0011host:list-forward",
		"000ehost:devices-l",
	} {
		f.Add([]byte(s))
	}
	var s *Server
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	f.Fuzz(func(t *testing.T, in []byte) {
		var c net.Conn
		var err error
		if s != nil {
			c, err = net.Dial("tcp", s.Addr)
		}
		if s == nil || err != nil {
			// host:kill stops a server; start another.
			if s != nil {
				s.Close()
			}
			dev := gadbDevice("sim-1")
			dev.Handler = nil // no command may block
			s = NewServer(dev)
			if c, err = net.Dial("tcp", s.Addr); err != nil {
				t.Fatal(err)
			}
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = c.Write(in)
		_ = c.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, c)
	})
}

func FuzzAdbdConn(f *testing.F) {
	cnxn := adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdCNXN, Arg0: adbwire.Version, Arg1: adbwire.MaxPayload, Data: []byte("host::\x00")})
	open := func(id uint32, svc string) []byte {
		return adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdOPEN, Arg0: id, Data: []byte(svc + "\x00")})
	}
	f.Add(append(bytes.Clone(cnxn), open(1, "shell:echo hi")...))
	f.Add(append(append(bytes.Clone(cnxn), open(1, "shell,v2,raw:cat")...),
		adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdWRTE, Arg0: 1, Arg1: 1, Data: adbwire.AppendShellPacket(nil, adbwire.ShellStdin, []byte("x"))})...))
	f.Add(append(append(bytes.Clone(cnxn), open(1, "sync:")...),
		adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdWRTE, Arg0: 1, Arg1: 1, Data: syncRequest("STAT", "/sdcard")})...))
	f.Add(append(append(bytes.Clone(cnxn), open(7, "tcp:6790")...),
		adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdCLSE, Arg0: 7, Arg1: 1})...))
	dev := gadbDevice("sim-1")
	dev.Handler = nil
	a := NewAdbd(dev)
	defer a.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := net.Dial("tcp", a.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = c.Write(in)
		_ = c.(*net.TCPConn).CloseWrite()
		_, _ = io.Copy(io.Discard, c)
	})
}
