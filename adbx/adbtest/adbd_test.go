package adbtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

func TestAdbdHandshake(t *testing.T) {
	dev := &FakeDevice{ProductName: "panther", ModelName: "Pixel 7", DeviceName: "panther",
		FeatureList: []string{"shell_v2", "cmd", "stat_v2", "delayed_ack", "sendrecv_v2", "sendrecv_v2_brotli"}}
	a := NewAdbd(dev)
	defer a.Close()
	tests := []struct {
		name        string
		version     uint32
		offer       uint32
		wantVersion uint32
		wantMax     uint32
	}{
		{"current host", adbwire.Version, 1 << 20, adbwire.Version, 1 << 20},
		{"host offers more", adbwire.Version, 4 << 20, adbwire.Version, 1 << 20},
		{"host offers less", adbwire.Version, 4096, adbwire.Version, 4096},
		{"old host", adbwire.VersionMin, 256 << 10, adbwire.VersionMin, 256 << 10},
		{"host states no limit", adbwire.Version, 0, adbwire.Version, 4096},
		{"tiny limit", adbwire.Version, 16, adbwire.Version, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialAdbd(t, a)
			c.send(adbwire.CmdCNXN, tt.version, tt.offer, []byte("host::\x00"))
			m := c.read() // read verifies data_check
			want := "device::ro.product.name=panther;ro.product.model=Pixel 7;ro.product.device=panther;features=shell_v2,cmd,stat_v2;"
			if m.Command != adbwire.CmdCNXN || m.Arg0 != tt.wantVersion || m.Arg1 != tt.wantMax || string(m.Data) != want {
				t.Errorf("reply %v %q\nwant CNXN(%#x, %d) %q", m, m.Data, tt.wantVersion, tt.wantMax, want)
			}
		})
	}
}

func TestAdbdIgnoresBeforeHandshake(t *testing.T) {
	a := NewAdbd(testDevice("x"))
	defer a.Close()
	c := dialAdbd(t, a)
	c.send(adbwire.CmdOPEN, 1, 0, []byte("shell:echo hi\x00"))
	c.send(adbwire.CmdAUTH, 1, 0, []byte("token"))
	c.connect(adbwire.MaxPayload)
	local, remote := c.open("shell:echo hi")
	if remote == 0 {
		t.Fatal("refused after the handshake")
	}
	if out := c.drain(local, remote); string(out) != "hi\n" {
		t.Errorf("output %q", out)
	}
	if got := a.Streams(); got != 1 {
		t.Errorf("Streams = %d, want 1 (the OPEN before CNXN does not count)", got)
	}
}

func TestAdbdServices(t *testing.T) {
	a := NewAdbd(testDevice("x"))
	defer a.Close()
	c := dialAdbd(t, a)
	c.connect(adbwire.MaxPayload)
	t.Run("refused", func(t *testing.T) {
		for _, svc := range []string{"reboot:", "remount:", "jdwp:1", "tcp:1", "tcp:99999", "frob"} {
			if _, remote := c.open(svc); remote != 0 {
				t.Errorf("%q accepted", svc)
			}
		}
	})
	t.Run("shell v2", func(t *testing.T) {
		local, remote := c.open("shell,v2,raw:split")
		res := readShellV2(t, bytes.NewReader(c.drain(local, remote)))
		if res.stdout.String() != "to stdout\n" || res.stderr.String() != "to stderr\n" || res.exit != 3 {
			t.Errorf("stdout %q stderr %q exit %d", res.stdout.String(), res.stderr.String(), res.exit)
		}
	})
	t.Run("tcp", func(t *testing.T) {
		local, remote := c.open("tcp:6790")
		if remote == 0 {
			t.Fatal("tcp:6790 refused")
		}
		c.send(adbwire.CmdWRTE, local, remote, []byte("ping"))
		var got []byte
		for len(got) < 4 {
			m := c.read()
			switch m.Command {
			case adbwire.CmdOKAY: // our WRTE was taken
			case adbwire.CmdWRTE:
				got = append(got, m.Data...)
				c.send(adbwire.CmdOKAY, local, remote, nil)
			default:
				t.Fatalf("unexpected %v", m)
			}
		}
		if string(got) != "ping" {
			t.Errorf("echo %q", got)
		}
		c.send(adbwire.CmdCLSE, local, remote, nil)
	})
}

// TestAdbdFlowControl checks both directions: the device sends one WRTE of
// at most the agreed size and waits for OKAY; it acknowledges the host's
// WRTE only after the service read it.
func TestAdbdFlowControl(t *testing.T) {
	a := NewAdbd(testDevice("x"))
	defer a.Close()
	c := dialAdbd(t, a)
	const maxData = 4096
	c.connect(maxData)
	local, remote := c.open("exec:bytes 10000")
	var got []byte
	for i := 0; ; i++ {
		m := c.read()
		if m.Command == adbwire.CmdCLSE {
			break
		}
		if m.Command != adbwire.CmdWRTE || len(m.Data) > maxData {
			t.Fatalf("message %d: %v, want WRTE of at most %d bytes", i, m, maxData)
		}
		got = append(got, m.Data...)
		// Until we answer, nothing more may come.
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		var one [1]byte
		if n, err := c.Read(one[:]); n != 0 || !errors.Is(err, errTimeout(err)) {
			t.Fatalf("after WRTE %d the device sent more without an OKAY (%d bytes, %v)", i, n, err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		c.send(adbwire.CmdOKAY, local, remote, nil)
	}
	if !bytes.Equal(got, pattern(10000)) {
		t.Errorf("got %d bytes, want the device's 10000", len(got))
	}
	if want := (10000 + maxData - 1) / maxData; len(got) == 10000 && want != 3 {
		t.Errorf("split into an unexpected number of WRTEs")
	}

	// Host to device: cat reads stdin, so each WRTE is acknowledged.
	local, remote = c.open("shell,v2,raw:cat")
	var in, out []byte
	for i := range 5 {
		in = adbwire.AppendShellPacket(in[:0], adbwire.ShellStdin, []byte("chunk "+strconv.Itoa(i)+"\n"))
		c.send(adbwire.CmdWRTE, local, remote, in)
		for {
			m := c.read()
			if m.Command == adbwire.CmdOKAY && m.Arg1 == local {
				break
			}
			if m.Command == adbwire.CmdWRTE {
				out = append(out, m.Data...)
				c.send(adbwire.CmdOKAY, local, remote, nil)
				continue
			}
			t.Fatalf("waiting for OKAY got %v", m)
		}
	}
	c.send(adbwire.CmdWRTE, local, remote, adbwire.AppendShellPacket(nil, adbwire.ShellCloseStdin, nil))
	for {
		m := c.read()
		if m.Command == adbwire.CmdCLSE {
			break
		}
		if m.Command == adbwire.CmdWRTE {
			out = append(out, m.Data...)
			c.send(adbwire.CmdOKAY, local, remote, nil)
		}
	}
	res := readShellV2(t, bytes.NewReader(out))
	if want := "chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n"; res.stdout.String() != want || res.exit != 0 {
		t.Errorf("cat: %q exit %d, want %q exit 0", res.stdout.String(), res.exit, want)
	}
}

// errTimeout returns err if it is a timeout, so errors.Is matches it.
func errTimeout(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return errors.New("not a timeout")
}

func TestAdbdManyConcurrentStreams(t *testing.T) {
	a := NewAdbd(testDevice("x"))
	defer a.Close()
	c := dialAdbd(t, a)
	c.connect(1024)
	const n = 64
	// Open all streams before reading any output, so they run together.
	for i := 1; i <= n; i++ {
		c.send(adbwire.CmdOPEN, uint32(i), 0, []byte(fmt.Sprintf("exec:bytes %d\x00", 1000*i)))
	}
	remotes := map[uint32]uint32{}
	outs := map[uint32][]byte{}
	closed := 0
	for closed < n {
		m := c.read()
		switch m.Command {
		case adbwire.CmdOKAY:
			if _, ok := remotes[m.Arg1]; ok {
				t.Fatalf("second OKAY for stream %d without a WRTE", m.Arg1)
			}
			remotes[m.Arg1] = m.Arg0
		case adbwire.CmdWRTE:
			if remotes[m.Arg1] != m.Arg0 {
				t.Fatalf("WRTE %v from an unknown device stream", m)
			}
			outs[m.Arg1] = append(outs[m.Arg1], m.Data...)
			c.send(adbwire.CmdOKAY, m.Arg1, m.Arg0, nil)
		case adbwire.CmdCLSE:
			closed++
		default:
			t.Fatalf("unexpected %v", m)
		}
	}
	seen := map[uint32]bool{}
	for i := uint32(1); i <= n; i++ {
		if seen[remotes[i]] {
			t.Errorf("device id %d used twice", remotes[i])
		}
		seen[remotes[i]] = true
		if !bytes.Equal(outs[i], pattern(1000*int(i))) {
			t.Errorf("stream %d: %d bytes, want the device's %d", i, len(outs[i]), 1000*i)
		}
	}
	if got := a.Streams(); got != n {
		t.Errorf("Streams = %d, want %d", got, n)
	}
}

func TestAdbdAbruptDisconnect(t *testing.T) {
	dev, started, cancelled := blockingDevice("x")
	a := NewAdbd(dev)
	defer a.Close()

	t.Run("host hangs up", func(t *testing.T) {
		c := dialAdbd(t, a)
		c.connect(adbwire.MaxPayload)
		c.open("shell,v2,raw:sleep")
		waitFor(t, started, "the command")
		c.Close()
		waitFor(t, cancelled, "the command's context to end")
	})
	t.Run("host closes the stream", func(t *testing.T) {
		c := dialAdbd(t, a)
		c.connect(adbwire.MaxPayload)
		local, remote := c.open("shell:sleep")
		waitFor(t, started, "the command")
		c.send(adbwire.CmdCLSE, local, remote, nil)
		waitFor(t, cancelled, "the command's context to end")
	})
	t.Run("DropConnections", func(t *testing.T) {
		c := dialAdbd(t, a)
		c.connect(adbwire.MaxPayload)
		c.open("exec:sleep")
		waitFor(t, started, "the command")
		a.DropConnections()
		waitFor(t, cancelled, "the command's context to end")
		if _, err := io.ReadAll(c); err != nil {
			t.Logf("after the drop: %v", err)
		}
		// The listener stays: a host reconnects.
		c2 := dialAdbd(t, a)
		c2.connect(adbwire.MaxPayload)
	})
}

func TestAdbdMalformed(t *testing.T) {
	a := NewAdbd(testDevice("x"))
	defer a.Close()
	good := adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdCNXN, Arg0: adbwire.VersionMin, Arg1: 4096, Data: []byte("host::\x00")})
	badSum := adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdOPEN, Arg0: 1, Arg1: 0, Data: []byte("shell:echo hi\x00")})
	badSum[16]++
	inputs := map[string][]byte{
		"garbage":             []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"bad magic":           append(good[:20:20], 0, 0, 0, 0),
		"huge payload":        adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdWRTE})[:12],
		"old host bad sum":    append(bytes.Clone(good), badSum...),
		"WRTE unknown stream": append(bytes.Clone(good), adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdWRTE, Arg0: 9, Arg1: 77, Data: []byte("x")})...),
		"CLSE unknown stream": append(bytes.Clone(good), adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdCLSE, Arg0: 9, Arg1: 77})...),
		"OPEN with id 0":      append(bytes.Clone(good), adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdOPEN, Data: []byte("shell:echo\x00")})...),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			c := dialAdbd(t, a)
			if _, err := c.Write(in); err != nil {
				t.Fatal(err)
			}
			_ = c.Conn.(*net.TCPConn).CloseWrite()
			_, _ = io.ReadAll(c)
		})
	}
	c := dialAdbd(t, a)
	c.connect(adbwire.MaxPayload)
	local, remote := c.open("shell:echo hi")
	if out := c.drain(local, remote); string(out) != "hi\n" {
		t.Errorf("after malformed input: %q", out)
	}
}

func TestListenAdbd(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:5555", "127.0.0.1:5585", "0.0.0.0:0", "192.0.2.1:0", "127.0.0.1", "127.0.0.1:x", "127.0.0.1:70000"} {
		if a, err := ListenAdbd(addr, testDevice("x")); err == nil {
			a.Close()
			t.Errorf("ListenAdbd(%q) succeeded", addr)
		}
	}
	if _, err := ListenAdbd("127.0.0.1:5560", testDevice("x")); !errors.Is(err, ErrReservedPort) {
		t.Errorf("ListenAdbd on 5560: %v, want ErrReservedPort", err)
	}
	a, err := ListenAdbd("127.0.0.1:0", testDevice("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if p := a.Port(); p == 0 || reservedPort(p) || a.Addr != "127.0.0.1:"+strconv.Itoa(p) {
		t.Errorf("Addr %q Port %d", a.Addr, p)
	}
}

func TestAdbdCloseWaits(t *testing.T) {
	dev, started, cancelled := blockingDevice("x")
	a := NewAdbd(dev)
	var wg sync.WaitGroup
	for range 3 {
		c := dialAdbd(t, a)
		c.connect(adbwire.MaxPayload)
		c.open("shell:sleep")
		waitFor(t, started, "the command")
	}
	wg.Add(1)
	go func() { defer wg.Done(); a.Close() }()
	for range 3 {
		waitFor(t, cancelled, "a command's context to end")
	}
	wg.Wait()
}

// TestAdbdFloodingHostIsDropped: a host that keeps writing without waiting
// for OKAY, to a service that is not reading, loses its connection instead
// of filling the device's memory.
func TestAdbdFloodingHostIsDropped(t *testing.T) {
	a := NewAdbd(gadbDevice("x"))
	defer a.Close()
	c := dialAdbd(t, a)
	c.connect(4096)
	local, remote := c.open("sync:")
	// The pull's first WRTE waits for an OKAY that never comes, so the
	// service reads nothing more.
	c.send(adbwire.CmdWRTE, local, remote, syncRequest("RECV", "/sdcard/Download/a.bin"))
	chunk := make([]byte, adbwire.MaxPayload)
	go func() {
		for range 6 {
			if _, err := c.Write(adbwire.AppendMessage(nil, adbwire.Message{Command: adbwire.CmdWRTE, Arg0: local, Arg1: remote, Data: chunk})); err != nil {
				return
			}
		}
	}()
	for {
		if _, err := adbwire.ReadMessage(c, adbwire.MaxPayload, false); err != nil {
			if errors.Is(errTimeout(err), err) {
				t.Fatalf("the connection stayed up: %v", err)
			}
			return
		}
	}
}
