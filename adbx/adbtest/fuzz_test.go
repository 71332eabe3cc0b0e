package adbtest

import (
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"net"
	"testing"
	"time"
)

// Seeds are real exchanges: what the stock adb 29 client and server and
// gadb send, as captured by a logging proxy in front of these endpoints.

func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{"000chost:version", "0017host:tport:serial:sim-1", "001bhost:forward:tcp:0;tcp:6790", "0005sync:", "zzzz", "0000"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		req, err := readRequest(bytes.NewReader(in))
		if err == nil && len(req)+4 > len(in) {
			t.Fatalf("request %q longer than the input", req)
		}
	})
}

func FuzzReadMessage(f *testing.F) {
	f.Add(appendMessage(nil, message{command: cmdCNXN, arg0: adbVersion, arg1: maxPayload, data: []byte("host::features=shell_v2,cmd,stat_v2,ls_v2\x00")}), true)
	f.Add(appendMessage(nil, message{command: cmdOPEN, arg0: 1, data: []byte("shell,v2,raw:dumpsys gfxinfo com.example framestats\x00")}), false)
	f.Add(appendMessage(nil, message{command: cmdWRTE, arg0: 1, arg1: 2, data: appendShellPacket(nil, shellCloseStdin, nil)}), true)
	f.Add(appendMessage(nil, message{command: cmdOKAY, arg0: 1, arg1: 2}), false)
	f.Fuzz(func(t *testing.T, in []byte, verify bool) {
		m, err := readMessage(bytes.NewReader(in), 4096, verify)
		if err != nil {
			return
		}
		// A message that decodes encodes back to the same bytes, except
		// for an unchecked data_check.
		out := appendMessage(nil, m)
		if verify {
			if !bytes.Equal(out, in[:len(out)]) {
				t.Fatalf("re-encoded % x, decoded from % x", out, in[:len(out)])
			}
		} else if !bytes.Equal(out[:16], in[:16]) || !bytes.Equal(out[20:], in[20:len(out)]) {
			t.Fatalf("re-encoded % x, decoded from % x", out, in[:len(out)])
		}
	})
}

func FuzzReadShellPacket(f *testing.F) {
	f.Add(appendShellPacket(nil, shellStdin, []byte("piped\ninput\n")))
	f.Add(appendShellPacket(nil, shellCloseStdin, nil))
	f.Add(appendShellPacket(nil, shellWindowSize, []byte("24x80,0x0\x00")))
	f.Add([]byte{3, 1, 0, 0, 0, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		id, data, err := readShellPacket(bytes.NewReader(in))
		if err != nil {
			return
		}
		if out := appendShellPacket(nil, id, data); !bytes.Equal(out, in[:len(out)]) {
			t.Fatalf("re-encoded % x from % x", out, in)
		}
	})
}

// syncRequest encodes a sync request.
func syncRequest(id, arg string) []byte {
	b := []byte(id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(arg)))
	return append(b, arg...)
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
	cnxn := appendMessage(nil, message{command: cmdCNXN, arg0: adbVersion, arg1: maxPayload, data: []byte("host::\x00")})
	open := func(id uint32, svc string) []byte {
		return appendMessage(nil, message{command: cmdOPEN, arg0: id, data: []byte(svc + "\x00")})
	}
	f.Add(append(bytes.Clone(cnxn), open(1, "shell:echo hi")...))
	f.Add(append(append(bytes.Clone(cnxn), open(1, "shell,v2,raw:cat")...),
		appendMessage(nil, message{command: cmdWRTE, arg0: 1, arg1: 1, data: appendShellPacket(nil, shellStdin, []byte("x"))})...))
	f.Add(append(append(bytes.Clone(cnxn), open(1, "sync:")...),
		appendMessage(nil, message{command: cmdWRTE, arg0: 1, arg1: 1, data: syncRequest("STAT", "/sdcard")})...))
	f.Add(append(append(bytes.Clone(cnxn), open(7, "tcp:6790")...),
		appendMessage(nil, message{command: cmdCLSE, arg0: 7, arg1: 1})...))
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
