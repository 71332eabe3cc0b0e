package adbtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/adbwire"
	"github.com/perfgate/perfgate/internal/pipenet"
)

// serverVersion is the host-protocol version the server reports (41, as adb
// 29 and later do); the stock adb client restarts a server that reports
// another.
const serverVersion = 0x29

// A Server is an adb server on a loopback port that speaks the host protocol
// (adb's SERVICES.TXT) and serves its Devices itself, without an adb binary.
// Clients such as adbx or gadb connect to it as to `adb start-server`.
type Server struct {
	// Addr is the server's address, "127.0.0.1:port" (for a server from
	// NewPipeServer, "adbtest-N.invalid:5037", which only Dial reaches).
	Addr string

	ln     net.Listener
	pipe   *pipenet.Network // nil: the server listens on TCP
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu            sync.Mutex
	closed        bool
	devices       []*hostDevice
	nextTransport uint64
	streams       map[string]int
	forwards      []*forward
	conns         map[net.Conn]struct{}
	changed       chan struct{} // closed when the device list changes
}

// hostDevice is a Device as the server lists it.
type hostDevice struct {
	dev         Device
	serial      string
	transportID uint64
	ctx         context.Context
	cancel      context.CancelFunc
	streams     map[io.Closer]struct{} // open service streams
	gone        bool                   // removed: no new streams
}

// forward is one `adb forward` listener.
type forward struct {
	serial     string
	local      string // "tcp:N" with the port actually bound
	remote     string
	remotePort int
	ln         net.Listener
}

// NewServer starts a Server on 127.0.0.1 at a free port, serving devs. It
// panics if it cannot listen, as httptest.NewServer does.
func NewServer(devs ...Device) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("adbtest: cannot listen on a loopback port: %v", err))
	}
	return start(ln, nil, devs)
}

// pipeServers numbers the servers of NewPipeServer, so each has a host
// name of its own.
var pipeServers atomic.Int64

// NewPipeServer starts a Server that listens on no port: its connections,
// and those of the forwards it adds, are in-memory pipes that only Dial
// makes, so the server and everything it serves run on the clock of the
// testing/synctest bubble it is created in (outside a bubble it is only a
// server without sockets). Addr is a made-up "adbtest-N.invalid:5037";
// Open returns devices that dial through Dial, and other clients reach the
// server with adbx.Options{Server: s.Addr, Dial: s.Dial}. Clients that
// dial TCP themselves, such as gadb and the stock adb, cannot.
func NewPipeServer(devs ...Device) *Server {
	n := &pipenet.Network{}
	host := fmt.Sprintf("adbtest-%d.invalid", pipeServers.Add(1))
	ln, err := n.Listen(host, 5037, nil)
	if err != nil {
		panic(fmt.Sprintf("adbtest: %v", err))
	}
	return start(ln, n, devs)
}

// Dial connects to the server, or to a port it forwards, as
// net.Dialer.DialContext does: what adbx.Options.Dial takes. A server from
// NewServer is dialled over TCP, one from NewPipeServer through its pipes.
func (s *Server) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.pipe == nil {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	return s.pipe.Dial(ctx, network, addr)
}

// start serves devs on ln, a listener of pipes when pipe is set.
func start(ln net.Listener, pipe *pipenet.Network, devs []Device) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		Addr:    ln.Addr().String(),
		ln:      ln,
		pipe:    pipe,
		ctx:     ctx,
		cancel:  cancel,
		streams: map[string]int{},
		conns:   map[net.Conn]struct{}{},
		changed: make(chan struct{}),
	}
	for _, d := range devs {
		s.Add(d)
	}
	s.wg.Add(1)
	go s.accept()
	return s
}

// Port is the server's TCP port, what `adb -P` and gadb.NewClientWith take.
func (s *Server) Port() int {
	_, p, _ := net.SplitHostPort(s.Addr)
	n, _ := strconv.Atoi(p)
	return n
}

// Open returns the attached device with that serial (the only one attached
// when serial is ""), opened through the server with adbx.Open and ready
// for use, as httptest.Server.Client returns a client ready for its
// server. Its calls have adbx.DefaultTimeout. It panics when the device
// cannot be opened (no such serial, none or several attached for "", or
// the server closed), as NewServer panics when it cannot listen: that is a
// mistake in the test.
func (s *Server) Open(serial string) *adbx.Device {
	if serial == "" {
		// Picked here, not by adbx.Open, which would follow a developer's
		// $ANDROID_SERIAL to a phone this server does not have.
		s.mu.Lock()
		n := len(s.devices)
		if n == 1 {
			serial = s.devices[0].serial
		}
		s.mu.Unlock()
		if n != 1 {
			panic(fmt.Sprintf("adbtest: Open(\"\") with %d devices attached; name one", n))
		}
	}
	d, err := openAdbx(s.Addr, serial, s.dialer())
	if err != nil {
		panic(fmt.Sprintf("adbtest: %v", err))
	}
	return d
}

// dialer is what adbx.Options.Dial gets: nil (TCP) unless the server
// listens on pipes.
func (s *Server) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.pipe == nil {
		return nil
	}
	return s.Dial
}

// Add attaches dev, as plugging in a phone does. A device with the serial of
// one already attached replaces it.
func (s *Server) Add(dev Device) {
	serial := dev.Serial()
	s.Remove(serial)
	ctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextTransport++
	s.devices = append(s.devices, &hostDevice{
		dev:         dev,
		serial:      serial,
		transportID: s.nextTransport,
		ctx:         ctx,
		cancel:      cancel,
		streams:     map[io.Closer]struct{}{},
	})
	s.notifyLocked()
}

// Remove detaches the device with that serial, as unplugging it does: its
// open streams are cut without a goodbye and its forwards go away.
func (s *Server) Remove(serial string) {
	s.mu.Lock()
	i := slices.IndexFunc(s.devices, func(d *hostDevice) bool { return d.serial == serial })
	if i < 0 {
		s.mu.Unlock()
		return
	}
	d := s.devices[i]
	s.devices = slices.Delete(s.devices, i, i+1)
	var closers []io.Closer
	for c := range d.streams {
		closers = append(closers, c)
	}
	s.forwards = slices.DeleteFunc(s.forwards, func(f *forward) bool {
		if f.serial == serial {
			closers = append(closers, f.ln)
			return true
		}
		return false
	})
	d.gone = true
	s.notifyLocked()
	s.mu.Unlock()
	// Streams are cut before commands learn of it, so none of them gets
	// to send an exit status: an unplugged phone says nothing more.
	for _, c := range closers {
		c.Close()
	}
	d.cancel()
}

// Streams is how many device services (shell, exec, sync, tcp, forwarded
// connections) clients have asked of the device with that serial so far,
// refused ones included: each is one adb round trip to the phone.
func (s *Server) Streams(serial string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[serial]
}

// Close stops the server, cuts every connection and forward, and waits for
// the services it runs to return.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return
	}
	s.closed = true
	closers := []io.Closer{s.ln}
	for c := range s.conns {
		closers = append(closers, c)
	}
	for _, f := range s.forwards {
		closers = append(closers, f.ln)
	}
	s.forwards = nil
	// Forwarded connections belong to no client connection of the server.
	for _, d := range s.devices {
		d.gone = true
		for c := range d.streams {
			closers = append(closers, c)
		}
	}
	s.mu.Unlock()
	for _, c := range closers {
		c.Close()
	}
	s.cancel()
	s.wg.Wait()
}

// notifyLocked wakes track-devices clients.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serveConn(c)
			c.Close()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// serveConn answers host requests on one connection; after a transport
// request the next request goes to that device.
func (s *Server) serveConn(c net.Conn) {
	var d *hostDevice
	for {
		req, err := adbwire.ReadString(c)
		if err != nil {
			// A request cut short has no one left to tell.
			if errors.Is(err, adbwire.ErrMalformed) && !errors.Is(err, io.ErrUnexpectedEOF) {
				fail(c, err.Error())
			}
			return
		}
		if d != nil && !strings.HasPrefix(req, "host") {
			s.runService(c, d, req, true)
			return
		}
		// After a transport switch, host requests are about that device
		// (the stock client sends host:forward that way).
		next, err := s.hostRequest(c, req, d)
		if err != nil {
			fail(c, err.Error())
			return
		}
		if next == nil {
			return
		}
		d = next
	}
}

// fail sends FAIL and hangs up gently: input the client already sent is
// read and dropped first, because closing a socket with unread input resets
// it and the client could lose the reason.
func fail(c net.Conn, reason string) {
	_ = adbwire.WriteFail(c, reason)
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		_ = tc.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = io.Copy(io.Discard, io.LimitReader(tc, 1<<20))
	}
}

// selector picks the device a host request is about.
type selector func() (*hostDevice, error)

// hostRequest answers one host request. It returns the device when the
// request switched the connection to it; an error is sent as FAIL.
func (s *Server) hostRequest(c net.Conn, req string, current *hostDevice) (*hostDevice, error) {
	sel, cmd, err := s.parseSelector(req)
	if current != nil && strings.HasPrefix(req, "host:") {
		sel = func() (*hostDevice, error) { return current, nil }
	}
	if err != nil {
		return nil, err
	}
	if h := serverServices[cmd]; h != nil {
		return nil, h(s, c, cmd)
	}
	if d, tport, ok, err := s.transportTarget(cmd, sel); ok {
		if err != nil {
			return nil, err
		}
		return s.switchTransport(c, d, tport)
	}
	if !isDeviceCommand(cmd) {
		return nil, fmt.Errorf("unknown host service %q", req)
	}
	d, err := sel()
	if err != nil {
		return nil, err
	}
	return nil, s.deviceService(c, d, cmd, req)
}

// serverServices are the host services about the server rather than a
// device, by command; an error is sent as FAIL.
var serverServices = map[string]func(s *Server, c net.Conn, cmd string) error{
	"version": func(_ *Server, c net.Conn, _ string) error {
		return adbwire.WriteOkay(c, fmt.Sprintf("%04x", serverVersion))
	},
	"kill": func(s *Server, c net.Conn, _ string) error {
		_ = adbwire.WriteOkay(c)
		go s.Close()
		return nil
	},
	"devices":         serveDevices,
	"devices-l":       serveDevices,
	"track-devices":   serveTrackDevices,
	"track-devices-l": serveTrackDevices,
	"host-features": func(_ *Server, c net.Conn, _ string) error {
		return adbwire.WriteOkay(c, "shell_v2,cmd,stat_v2,ls_v2")
	},
	"list-forward": func(s *Server, c net.Conn, _ string) error {
		return adbwire.WriteOkay(c, s.forwardList())
	},
	"killforward-all": func(s *Server, c net.Conn, _ string) error {
		s.killForwards(func(*forward) bool { return true })
		// The first OKAY says the server took the request, the second
		// that it succeeded.
		_, err := c.Write([]byte("OKAYOKAY"))
		return err
	},
}

func serveDevices(s *Server, c net.Conn, cmd string) error {
	return adbwire.WriteOkay(c, s.deviceList(cmd == "devices-l"))
}

func serveTrackDevices(s *Server, c net.Conn, cmd string) error {
	s.trackDevices(c, cmd == "track-devices-l")
	return nil
}

// transportPrefixes are the transport requests naming their device.
var transportPrefixes = []struct {
	prefix      string
	byID, tport bool
}{
	{"transport:", false, false},
	{"transport-id:", true, false},
	{"tport:serial:", false, true},
	{"tport:transport-id:", true, true},
}

// transportTarget is the device a transport request switches to, and
// whether it is a tport one (which answers with the transport id); ok is
// false when cmd is not a transport request.
func (s *Server) transportTarget(cmd string, sel selector) (d *hostDevice, tport, ok bool, err error) {
	switch cmd {
	case "transport-any", "transport", "tport:any", "tport":
		// Bare "transport"/"tport" come from a host-serial: prefix.
		d, err := sel()
		return d, strings.HasPrefix(cmd, "tport"), true, err
	}
	for _, p := range transportPrefixes {
		if rest, found := strings.CutPrefix(cmd, p.prefix); found {
			find := s.bySerial
			if p.byID {
				find = s.byTransportID
			}
			d, err := find(rest)
			return d, p.tport, true, err
		}
	}
	return nil, false, false, nil
}

// deviceService answers a host service about the device d.
func (s *Server) deviceService(c net.Conn, d *hostDevice, cmd, req string) error {
	switch {
	case cmd == "features":
		return adbwire.WriteOkay(c, strings.Join(servedFeatures(d.dev), ","))
	case cmd == "get-state":
		return adbwire.WriteOkay(c, "device")
	case cmd == "get-serialno":
		return adbwire.WriteOkay(c, d.serial)
	case cmd == "get-devpath":
		return adbwire.WriteOkay(c, "unknown")
	case strings.HasPrefix(cmd, "forward:"):
		port, err := s.addForward(d, strings.TrimPrefix(cmd, "forward:"))
		if err != nil {
			return err
		}
		b := []byte("OKAYOKAY")
		if port != 0 {
			b = adbwire.AppendString(b, strconv.Itoa(port))
		}
		_, err = c.Write(b)
		return err
	case strings.HasPrefix(cmd, "killforward:"):
		local := strings.TrimPrefix(cmd, "killforward:")
		if s.killForwards(func(f *forward) bool { return f.local == local }) == 0 {
			return fmt.Errorf("listener '%s' not found", local)
		}
		_, err := c.Write([]byte("OKAYOKAY"))
		return err
	}
	return fmt.Errorf("unknown host service %q", req)
}

// isDeviceCommand says whether cmd is a host service about one device.
func isDeviceCommand(cmd string) bool {
	switch cmd {
	case "features", "get-state", "get-serialno", "get-devpath":
		return true
	}
	return strings.HasPrefix(cmd, "forward:") || strings.HasPrefix(cmd, "killforward:")
}

// parseSelector splits "host:cmd", "host-serial:S:cmd" and
// "host-transport-id:N:cmd" into how to find the device and the command.
func (s *Server) parseSelector(req string) (selector, string, error) {
	switch {
	case strings.HasPrefix(req, "host:"):
		return s.anyDevice, strings.TrimPrefix(req, "host:"), nil
	case strings.HasPrefix(req, "host-serial:"):
		serial, cmd := s.splitSerial(strings.TrimPrefix(req, "host-serial:"))
		return func() (*hostDevice, error) { return s.bySerial(serial) }, cmd, nil
	case strings.HasPrefix(req, "host-transport-id:"):
		id, cmd, _ := strings.Cut(strings.TrimPrefix(req, "host-transport-id:"), ":")
		return func() (*hostDevice, error) { return s.byTransportID(id) }, cmd, nil
	case strings.HasPrefix(req, "host-usb:"), strings.HasPrefix(req, "host-local:"):
		_, cmd, _ := strings.Cut(req, ":")
		return func() (*hostDevice, error) { return nil, errors.New("no devices/emulators found") }, cmd, nil
	}
	return nil, "", fmt.Errorf("unknown host service %q", req)
}

// splitSerial finds where the serial ends in "S:cmd". Serials such as
// "127.0.0.1:5555" hold colons, so known serials are tried first.
func (s *Server) splitSerial(rest string) (serial, cmd string) {
	s.mu.Lock()
	known := make([]string, 0, len(s.devices))
	for _, d := range s.devices {
		known = append(known, d.serial)
	}
	s.mu.Unlock()
	slices.SortFunc(known, func(a, b string) int { return len(b) - len(a) })
	for _, k := range known {
		if strings.HasPrefix(rest, k+":") {
			return k, rest[len(k)+1:]
		}
	}
	serial, cmd, _ = strings.Cut(rest, ":")
	// An unknown host:port serial still reads as one serial in the error.
	if port, after, ok := strings.Cut(cmd, ":"); ok {
		if _, err := strconv.Atoi(port); err == nil {
			return serial + ":" + port, after
		}
	}
	return serial, cmd
}

func (s *Server) anyDevice() (*hostDevice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch len(s.devices) {
	case 0:
		return nil, errors.New("no devices/emulators found")
	case 1:
		return s.devices[0], nil
	}
	return nil, errors.New("more than one device/emulator")
}

func (s *Server) bySerial(serial string) (*hostDevice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.serial == serial {
			return d, nil
		}
	}
	return nil, fmt.Errorf("device '%s' not found", serial)
}

func (s *Server) byTransportID(id string) (*hostDevice, error) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("invalid transport id %q", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.devices {
		if d.transportID == n {
			return d, nil
		}
	}
	return nil, fmt.Errorf("no device with transport id '%d'", n)
}

// switchTransport acknowledges a transport request; tport requests also
// learn the transport id, as 8 little-endian bytes.
func (s *Server) switchTransport(c net.Conn, d *hostDevice, tport bool) (*hostDevice, error) {
	b := []byte("OKAY")
	if tport {
		b = binary.LittleEndian.AppendUint64(b, d.transportID)
	}
	if _, err := c.Write(b); err != nil {
		return nil, nil
	}
	return d, nil
}

// deviceList formats `adb devices` (-l adds attributes as adb does, with
// characters other than letters, digits, '-' and '.' turned to '_').
func (s *Server) deviceList(long bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, d := range s.devices {
		if !long {
			fmt.Fprintf(&b, "%s\tdevice\n", d.serial)
			continue
		}
		product, model, device := d.dev.Product()
		fmt.Fprintf(&b, "%-22s device product:%s model:%s device:%s transport_id:%d\n",
			d.serial, sanitize(product), sanitize(model), sanitize(device), d.transportID)
	}
	return b.String()
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// trackDevices sends the device list now and on every change, until the
// client hangs up or the server closes.
func (s *Server) trackDevices(c net.Conn, long bool) {
	if adbwire.WriteOkay(c) != nil {
		return
	}
	gone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, c)
		close(gone)
	}()
	defer func() { c.Close(); <-gone }()
	last := "\x00"
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if list := s.deviceList(long); list != last {
			if _, err := c.Write(adbwire.AppendString(nil, list)); err != nil {
				return
			}
			last = list
		}
		select {
		case <-changed:
		case <-gone:
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// addForward parses "[norebind:]tcp:L;tcp:R" and starts the listener. It
// returns the port it picked when L was 0.
func (s *Server) addForward(d *hostDevice, spec string) (int, error) {
	norebind := false
	if rest, ok := strings.CutPrefix(spec, "norebind:"); ok {
		norebind, spec = true, rest
	}
	local, remote, ok := strings.Cut(spec, ";")
	if !ok {
		return 0, fmt.Errorf("bad forward: %q", spec)
	}
	lport, err := parseTCPSpec(local)
	if err != nil {
		return 0, err
	}
	rport, err := parseTCPSpec(remote)
	if err != nil {
		return 0, err
	}
	if rport == 0 {
		return 0, fmt.Errorf("bad forward remote %q: port 0", remote)
	}
	if reservedPort(lport) {
		return 0, fmt.Errorf("cannot bind listener: %s is in 5555-5585, which adb keeps for emulators", local)
	}
	s.mu.Lock()
	for _, f := range s.forwards {
		if lport != 0 && f.local == local {
			if norebind {
				s.mu.Unlock()
				return 0, errors.New("cannot rebind existing socket")
			}
			// Rebinding points the same local port at a new target.
			f.serial, f.remote, f.remotePort = d.serial, remote, rport
			s.mu.Unlock()
			return 0, nil
		}
	}
	s.mu.Unlock()
	ln, bound, err := s.listenForward(lport)
	if err != nil {
		return 0, fmt.Errorf("cannot bind listener: %w", err)
	}
	f := &forward{serial: d.serial, local: "tcp:" + strconv.Itoa(bound), remote: remote, remotePort: rport, ln: ln}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return 0, errors.New("server closed")
	}
	s.forwards = append(s.forwards, f)
	s.wg.Add(1)
	s.mu.Unlock()
	go s.serveForward(f)
	if lport == 0 {
		return bound, nil
	}
	return 0, nil
}

// parseTCPSpec reads adb's "tcp:N" socket spec.
func parseTCPSpec(spec string) (int, error) {
	p, ok := strings.CutPrefix(spec, "tcp:")
	if !ok {
		return 0, fmt.Errorf("unsupported socket spec %q: only tcp:<port> is simulated", spec)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		return 0, fmt.Errorf("bad socket spec %q: bad port", spec)
	}
	return n, nil
}

// reservedPort says whether p is in the range adb scans for emulators.
func reservedPort(p int) bool { return p >= 5555 && p <= 5585 }

// listenForward listens on the local port of a forward, on the server's
// pipes or on 127.0.0.1, and says which port it bound.
func (s *Server) listenForward(port int) (net.Listener, int, error) {
	if s.pipe != nil {
		host, _, _ := net.SplitHostPort(s.Addr)
		ln, err := s.pipe.Listen(host, port, reservedPort)
		if err != nil {
			return nil, 0, err
		}
		return ln, ln.Port(), nil
	}
	ln, err := listenLoopback(port)
	if err != nil {
		return nil, 0, err
	}
	return ln, ln.Addr().(*net.TCPAddr).Port, nil
}

// listenLoopback listens on 127.0.0.1:port; for port 0 it keeps clear of
// the emulator range.
func listenLoopback(port int) (net.Listener, error) {
	for range 10 {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			return nil, err
		}
		if port != 0 || !reservedPort(ln.Addr().(*net.TCPAddr).Port) {
			return ln, nil
		}
		ln.Close()
	}
	return nil, errors.New("no free loopback port outside 5555-5585")
}

func (s *Server) serveForward(f *forward) {
	defer s.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		serial, remote := f.serial, f.remote
		s.mu.Unlock()
		d, err := s.bySerial(serial)
		if err != nil {
			c.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.runService(c, d, remote, false)
		}()
	}
}

func (s *Server) forwardList() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, f := range s.forwards {
		fmt.Fprintf(&b, "%s %s %s\n", f.serial, f.local, f.remote)
	}
	return b.String()
}

// killForwards closes the forwards match selects and says how many.
func (s *Server) killForwards(match func(*forward) bool) int {
	s.mu.Lock()
	var gone []*forward
	s.forwards = slices.DeleteFunc(s.forwards, func(f *forward) bool {
		if match(f) {
			gone = append(gone, f)
			return true
		}
		return false
	})
	s.mu.Unlock()
	for _, f := range gone {
		f.ln.Close()
	}
	return len(gone)
}

// runService opens the service name on d and runs it over c. reply says
// whether the client expects OKAY/FAIL first (a forwarded connection does
// not).
func (s *Server) runService(c net.Conn, d *hostDevice, name string, reply bool) {
	defer c.Close()
	s.mu.Lock()
	s.streams[d.serial]++
	s.mu.Unlock()
	svc, err := openService(d.ctx, d.dev, name)
	if err != nil {
		if reply {
			fail(c, err.Error())
		}
		return
	}
	s.mu.Lock()
	if d.gone || s.closed {
		s.mu.Unlock()
		svc.abandon()
		return
	}
	d.streams[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(d.streams, c)
		s.mu.Unlock()
	}()
	if reply {
		if adbwire.WriteOkay(c) != nil {
			svc.abandon()
			return
		}
	}
	svc.run(c)
}
