package adbtest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/adbwire"
)

func TestServerHostServices(t *testing.T) {
	s := NewServer(
		&FakeDevice{SerialNo: "emulator-5554", ProductName: "sdk_gphone64", ModelName: "sdk gphone64 x86 64", DeviceName: "emu64xa"},
		&FakeDevice{SerialNo: "127.0.0.1:40001", FeatureList: []string{"shell_v2", "cmd", "delayed_ack", "abb"}},
	)
	defer s.Close()
	tests := []struct {
		req  string
		ok   bool
		want string // the length-prefixed payload, or the FAIL message
	}{
		{"host:version", true, "0029"},
		{"host:devices", true, "emulator-5554\tdevice\n127.0.0.1:40001\tdevice\n"},
		{"host:devices-l", true,
			"emulator-5554          device product:sdk_gphone64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:1\n" +
				"127.0.0.1:40001        device product:fake model:Fake_Phone device:fake transport_id:2\n"},
		{"host-serial:emulator-5554:features", true, "shell_v2,cmd,stat_v2,ls_v2"},
		// Features the endpoints do not implement are not advertised.
		{"host-serial:127.0.0.1:40001:features", true, "shell_v2,cmd"},
		{"host-serial:127.0.0.1:40001:get-serialno", true, "127.0.0.1:40001"},
		{"host-serial:emulator-5554:get-state", true, "device"},
		{"host-transport-id:2:get-serialno", true, "127.0.0.1:40001"},
		{"host-serial:emulator-5554:get-devpath", true, "unknown"},
		{"host-serial:nope:get-state", false, "device 'nope' not found"},
		{"host-serial:10.0.0.9:5555:get-state", false, "device '10.0.0.9:5555' not found"},
		{"host:get-state", false, "more than one device/emulator"},
		{"host:transport:nope", false, "device 'nope' not found"},
		{"host:transport-id:x", false, `invalid transport id "x"`},
		{"host:transport-any", false, "more than one device/emulator"},
		{"host:frobnicate", false, `unknown host service "host:frobnicate"`},
		{"bogus", false, `unknown host service "bogus"`},
		{"host:list-forward", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.req, func(t *testing.T) {
			c := dialHost(t, s)
			c.send(tt.req)
			ok, msg := c.status()
			if ok != tt.ok {
				t.Fatalf("%s: OKAY=%v (%q), want OKAY=%v", tt.req, ok, msg, tt.ok)
			}
			if ok {
				msg = c.hexString()
			}
			if msg != tt.want {
				t.Errorf("%s = %q, want %q", tt.req, msg, tt.want)
			}
		})
	}
}

func TestServerTransports(t *testing.T) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	tests := []struct {
		name  string
		req   string
		tport bool
	}{
		{"transport", "host:transport:a", false},
		{"transport-any", "host:transport-any", false},
		{"transport-id", "host:transport-id:1", false},
		{"tport serial", "host:tport:serial:a", true},
		{"tport any", "host:tport:any", true},
		{"host-serial tport", "host-serial:a:tport", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialHost(t, s)
			c.send(tt.req)
			c.okay()
			if tt.tport {
				if id := binary.LittleEndian.Uint64(c.readN(8)); id != 1 {
					t.Errorf("transport id %d, want 1", id)
				}
			}
			c.send("shell:echo hi")
			c.okay()
			out, _ := io.ReadAll(c)
			if string(out) != "hi\n" {
				t.Errorf("shell output %q, want %q", out, "hi\n")
			}
		})
	}
	// No device, no transport.
	s.Remove("a")
	c := dialHost(t, s)
	c.send("host:transport-any")
	if ok, msg := c.status(); ok || msg != "no devices/emulators found" {
		t.Errorf("transport-any without devices: OKAY=%v %q", ok, msg)
	}
}

// openDevice switches a new connection to the device and asks for service.
func openDevice(t *testing.T, s *Server, serial, service string) (*hostConn, bool, string) {
	t.Helper()
	c := dialHost(t, s)
	c.send("host:transport:" + serial)
	c.okay()
	c.send(service)
	ok, msg := c.status()
	return c, ok, msg
}

func TestServerShell(t *testing.T) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	t.Run("raw merges stderr", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "shell:split")
		if !ok {
			t.Fatal(msg)
		}
		out, _ := io.ReadAll(c)
		if string(out) != "to stdout\nto stderr\n" {
			t.Errorf("output %q", out)
		}
	})
	t.Run("exec", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "exec:bytes 200000")
		if !ok {
			t.Fatal(msg)
		}
		out, _ := io.ReadAll(c)
		if !bytes.Equal(out, pattern(200000)) {
			t.Errorf("exec output of %d bytes differs from the %d the device wrote", len(out), 200000)
		}
	})
	for _, svc := range []string{"shell,v2,raw:split", "shell,v2,TERM=xterm-256color,raw:split", "shell,v2:split"} {
		t.Run(svc, func(t *testing.T) {
			c, ok, msg := openDevice(t, s, "a", svc)
			if !ok {
				t.Fatal(msg)
			}
			res := readShellV2(t, c)
			if res.stdout.String() != "to stdout\n" || res.stderr.String() != "to stderr\n" || res.exit != 3 {
				t.Errorf("stdout %q stderr %q exit %d, want %q %q 3", res.stdout.String(), res.stderr.String(), res.exit, "to stdout\n", "to stderr\n")
			}
		})
	}
	t.Run("v2 stdin", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "shell,v2,raw:cat")
		if !ok {
			t.Fatal(msg)
		}
		var b []byte
		b = adbwire.AppendShellPacket(b, adbwire.ShellWindowSize, []byte("24x80,0x0\x00"))
		b = adbwire.AppendShellPacket(b, adbwire.ShellStdin, []byte("line 1\n"))
		b = adbwire.AppendShellPacket(b, adbwire.ShellStdin, []byte("line 2\n"))
		b = adbwire.AppendShellPacket(b, adbwire.ShellCloseStdin, nil)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		res := readShellV2(t, c)
		if res.stdout.String() != "line 1\nline 2\n" || res.exit != 0 {
			t.Errorf("cat echoed %q exit %d", res.stdout.String(), res.exit)
		}
	})
	t.Run("v2 large output", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "shell,v2,raw:bytes 300001")
		if !ok {
			t.Fatal(msg)
		}
		res := readShellV2(t, c)
		if !bytes.Equal(res.stdout.Bytes(), pattern(300001)) || res.exit != 0 {
			t.Errorf("got %d bytes exit %d, want the device's 300001 bytes exit 0", res.stdout.Len(), res.exit)
		}
	})
	t.Run("no v2 without the feature", func(t *testing.T) {
		s := NewServer(&FakeDevice{SerialNo: "old", FeatureList: []string{}})
		defer s.Close()
		_, ok, msg := openDevice(t, s, "old", "shell,v2,raw:id")
		if ok || !strings.Contains(msg, "shell_v2") {
			t.Errorf("OKAY=%v %q, want a FAIL naming shell_v2", ok, msg)
		}
	})
	t.Run("unknown service", func(t *testing.T) {
		_, ok, msg := openDevice(t, s, "a", "reboot:")
		if ok || msg != `unknown service "reboot:"` {
			t.Errorf("OKAY=%v %q", ok, msg)
		}
	})
}

// blockingDevice reports when a command starts and when its ctx ends.
func blockingDevice(serial string) (*FakeDevice, chan struct{}, chan struct{}) {
	started, cancelled := make(chan struct{}, 100), make(chan struct{}, 100)
	return &FakeDevice{SerialNo: serial, Handler: func(ctx context.Context, cmd string, _ io.Reader, stdout, _ io.Writer) int {
		started <- struct{}{}
		_, _ = io.WriteString(stdout, "started\n")
		<-ctx.Done()
		cancelled <- struct{}{}
		return 1
	}}, started, cancelled
}

func waitFor(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestServerClientHangUpCancelsShell(t *testing.T) {
	for _, svc := range []string{"shell:sleep 100", "shell,v2,raw:sleep 100", "exec:sleep 100"} {
		t.Run(svc, func(t *testing.T) {
			dev, started, cancelled := blockingDevice("a")
			s := NewServer(dev)
			defer s.Close()
			c, ok, msg := openDevice(t, s, "a", svc)
			if !ok {
				t.Fatal(msg)
			}
			waitFor(t, started, "the command to start")
			c.Close()
			waitFor(t, cancelled, "the command's context to end")
		})
	}
}

func TestServerRemoveCutsStreams(t *testing.T) {
	dev, started, cancelled := blockingDevice("a")
	s := NewServer(dev, testDevice("b"))
	defer s.Close()
	c, ok, msg := openDevice(t, s, "a", "shell,v2,raw:sleep 100")
	if !ok {
		t.Fatal(msg)
	}
	waitFor(t, started, "the command to start")
	if id, data, err := adbwire.NewShellReader(c).Next(); err != nil || id != adbwire.ShellStdout || string(data) != "started\n" {
		t.Fatalf("first packet %d %q %v", id, data, err)
	}
	s.Remove("a")
	waitFor(t, cancelled, "the command's context to end")
	res := readShellV2(t, c)
	if res.exit != -1 || res.stdout.Len() != 0 {
		t.Errorf("an unplugged device sent %q and exit status %d", res.stdout.String(), res.exit)
	}
	// The other device is untouched; the removed one is gone.
	c2, ok, _ := openDevice(t, s, "b", "shell:echo hi")
	if !ok {
		t.Fatal("device b went away too")
	}
	if out, _ := io.ReadAll(c2); string(out) != "hi\n" {
		t.Errorf("b: %q", out)
	}
	c3 := dialHost(t, s)
	c3.send("host:transport:a")
	if ok, msg := c3.status(); ok || msg != "device 'a' not found" {
		t.Errorf("removed device: OKAY=%v %q", ok, msg)
	}
	// Remove of an unknown serial does nothing.
	s.Remove("zzz")
}

func TestServerStreams(t *testing.T) {
	s := NewServer(testDevice("a"), testDevice("b"))
	defer s.Close()
	for range 3 {
		c, _, _ := openDevice(t, s, "a", "shell:echo hi")
		_, _ = io.ReadAll(c)
	}
	_, _, _ = openDevice(t, s, "a", "no-such-service:")
	c, _, _ := openDevice(t, s, "b", "sync:")
	c.Close()
	// Host services are not device round trips.
	c = dialHost(t, s)
	c.send("host-serial:a:get-state")
	c.okay()
	if got := s.Streams("a"); got != 4 {
		t.Errorf("Streams(a) = %d, want 4", got)
	}
	if got := s.Streams("b"); got != 1 {
		t.Errorf("Streams(b) = %d, want 1", got)
	}
	if got := s.Streams("c"); got != 0 {
		t.Errorf("Streams(c) = %d, want 0", got)
	}
}

func TestServerMalformedInput(t *testing.T) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	inputs := []string{
		"zzzzhost:version",
		"0005host",
		"ffff",
		"\x00\x00\x00\x00",
		"0010host:transport:a" + "0003xyz",
		"0010host:transport:a" + "00",
	}
	for _, in := range inputs {
		c := dialHost(t, s)
		if _, err := c.Write([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if cw, ok := c.Conn.(*net.TCPConn); ok {
			_ = cw.CloseWrite()
		}
		if _, err := io.ReadAll(c); err != nil {
			t.Errorf("%q: reading the reply: %v", in, err)
		}
	}
	// Still serving.
	c := dialHost(t, s)
	c.send("host:version")
	c.okay()
	if v := c.hexString(); v != "0029" {
		t.Errorf("version %q after malformed input", v)
	}
}

func TestServerTrackDevices(t *testing.T) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	c := dialHost(t, s)
	c.send("host:track-devices")
	c.okay()
	if got := c.hexString(); got != "a\tdevice\n" {
		t.Fatalf("first list %q", got)
	}
	s.Add(testDevice("b"))
	if got := c.hexString(); got != "a\tdevice\nb\tdevice\n" {
		t.Fatalf("after Add %q", got)
	}
	s.Remove("a")
	if got := c.hexString(); got != "b\tdevice\n" {
		t.Fatalf("after Remove %q", got)
	}
}

func TestServerForward(t *testing.T) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	c := dialHost(t, s)
	c.send("host-serial:a:forward:tcp:0;tcp:6790")
	c.okay()
	c.okay()
	port, err := strconv.Atoi(c.hexString())
	if err != nil || port == 0 {
		t.Fatalf("forward tcp:0 answered port %v (%v)", port, err)
	}
	local := fmt.Sprintf("tcp:%d", port)

	echo := func() error {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return err
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		msg := pattern(100000)
		go func() { _, _ = conn.Write(msg) }()
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(conn, got); err != nil {
			return err
		}
		if !bytes.Equal(got, msg) {
			return fmt.Errorf("echo differs")
		}
		return nil
	}
	for range 3 {
		if err := echo(); err != nil {
			t.Fatalf("through the forward: %v", err)
		}
	}
	if got := s.Streams("a"); got != 3 {
		t.Errorf("Streams = %d after 3 forwarded connections", got)
	}

	list := func() string {
		c := dialHost(t, s)
		c.send("host:list-forward")
		c.okay()
		return c.hexString()
	}
	if got, want := list(), "a "+local+" tcp:6790\n"; got != want {
		t.Errorf("list-forward = %q, want %q", got, want)
	}

	c = dialHost(t, s)
	c.send("host-serial:a:forward:norebind:" + local + ";tcp:1234")
	if ok, msg := c.status(); ok || msg != "cannot rebind existing socket" {
		t.Errorf("norebind: OKAY=%v %q", ok, msg)
	}
	c = dialHost(t, s)
	c.send("host-serial:a:forward:" + local + ";tcp:1234")
	c.okay()
	c.okay()
	if got, want := list(), "a "+local+" tcp:1234\n"; got != want {
		t.Errorf("after rebind list-forward = %q, want %q", got, want)
	}
	// Nothing listens on device port 1234: the connection is cut.
	if err := echo(); err == nil {
		t.Errorf("a forward to a closed device port echoed")
	}

	for _, bad := range []string{"tcp:5555;tcp:1", "localabstract:x;tcp:1", "tcp:0;jdwp:1", "tcp:0", "tcp:0;tcp:0"} {
		c = dialHost(t, s)
		c.send("host-serial:a:forward:" + bad)
		if ok, msg := c.status(); ok {
			t.Errorf("forward %q accepted", bad)
		} else if msg == "" {
			t.Errorf("forward %q: FAIL without a reason", bad)
		}
	}

	c = dialHost(t, s)
	c.send("host-serial:a:killforward:" + local)
	c.okay()
	c.okay()
	if got := list(); got != "" {
		t.Errorf("after killforward list-forward = %q", got)
	}
	if _, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		t.Errorf("the killed forward still accepts connections")
	}
	c = dialHost(t, s)
	c.send("host-serial:a:killforward:" + local)
	if ok, msg := c.status(); ok || msg != "listener '"+local+"' not found" {
		t.Errorf("second killforward: OKAY=%v %q", ok, msg)
	}

	for range 2 {
		c = dialHost(t, s)
		c.send("host-serial:a:forward:tcp:0;tcp:6790")
		c.okay()
		c.okay()
		c.hexString()
	}
	c = dialHost(t, s)
	c.send("host:killforward-all")
	c.okay()
	c.okay()
	if got := list(); got != "" {
		t.Errorf("after killforward-all list-forward = %q", got)
	}
}

func TestServerKill(t *testing.T) {
	s := NewServer(testDevice("a"))
	c := dialHost(t, s)
	c.send("host:kill")
	c.okay()
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := net.Dial("tcp", s.Addr)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("server still listens after host:kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Close() // a second Close is harmless
}

func TestServerCloseEndsEverything(t *testing.T) {
	dev, started, cancelled := blockingDevice("a")
	s := NewServer(dev)
	c, ok, msg := openDevice(t, s, "a", "shell:sleep")
	if !ok {
		t.Fatal(msg)
	}
	waitFor(t, started, "the command")
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	waitFor(t, cancelled, "the command's context to end")
	waitFor(t, done, "Close to return")
	if _, err := io.ReadAll(c); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("reading after Close: %v", err)
	}
}

func TestServerAddReplaces(t *testing.T) {
	s := NewServer(&FakeDevice{SerialNo: "a", ModelName: "One"})
	defer s.Close()
	s.Add(&FakeDevice{SerialNo: "a", ModelName: "Two"})
	c := dialHost(t, s)
	c.send("host:devices-l")
	c.okay()
	if got, want := c.hexString(), "a                      device product:fake model:Two device:fake transport_id:2\n"; got != want {
		t.Errorf("devices-l = %q, want %q", got, want)
	}
}

var _ = context.Background

func TestServerInteractiveShell(t *testing.T) {
	s := NewServer(testDevice("a"))
	defer s.Close()
	t.Run("v1", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "shell:")
		if !ok {
			t.Fatal(msg)
		}
		if _, err := io.WriteString(c, "echo hj\x7fi\rexit\r"); err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(c)
		want := "$ echo hj\b \bi\r\nhi\r\n$ exit\r\n"
		if string(out) != want {
			t.Errorf("session %q, want %q", out, want)
		}
	})
	t.Run("v2 pty", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "shell,v2,pty:")
		if !ok {
			t.Fatal(msg)
		}
		var in []byte
		in = adbwire.AppendShellPacket(in, adbwire.ShellStdin, []byte("split\r"))
		in = adbwire.AppendShellPacket(in, adbwire.ShellStdin, []byte("\x03exit 7\r"))
		if _, err := c.Write(in); err != nil {
			t.Fatal(err)
		}
		res := readShellV2(t, c)
		want := "$ split\r\nto stdout\r\nto stderr\r\n$ ^C\r\n$ exit 7\r\n"
		if res.stdout.String() != want || res.exit != 7 {
			t.Errorf("session %q exit %d, want %q exit 7", res.stdout.String(), res.exit, want)
		}
	})
	t.Run("ctrl-d", func(t *testing.T) {
		c, ok, msg := openDevice(t, s, "a", "shell,v2,pty:")
		if !ok {
			t.Fatal(msg)
		}
		if _, err := c.Write(adbwire.AppendShellPacket(nil, adbwire.ShellStdin, []byte{4})); err != nil {
			t.Fatal(err)
		}
		if res := readShellV2(t, c); res.exit != 0 || res.stdout.String() != "$ " {
			t.Errorf("session %q exit %d", res.stdout.String(), res.exit)
		}
	})
}

// TestServerCloseCutsForwardedConnections: an idle keep-alive connection
// through a forward must not hold Close up.
func TestServerCloseCutsForwardedConnections(t *testing.T) {
	s := NewServer(testDevice("a"))
	c := dialHost(t, s)
	c.send("host-serial:a:forward:tcp:0;tcp:6790")
	c.okay()
	c.okay()
	port := c.hexString()
	conn, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(conn, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	waitFor(t, done, "Close with an open forwarded connection")
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Errorf("the forwarded connection survived Close")
	}
}
