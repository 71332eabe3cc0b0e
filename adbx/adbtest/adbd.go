package adbtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/perfgate/perfgate/internal/adbwire"
)

// An Adbd is the device side of adb on a loopback port: it speaks the device
// protocol (adb's protocol.txt) for one Device, as adbd does on a phone in
// TCP mode, so the stock adb server joins it with `adb connect`. It plays a
// phone with authentication off and no TLS.
type Adbd struct {
	// Addr is the listener's address, "127.0.0.1:port", what `adb connect`
	// takes and, so, the device's serial in the stock adb server.
	Addr string

	dev     Device
	ln      net.Listener
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	streams atomic.Int64

	mu     sync.Mutex
	closed bool
	conns  map[*adbdConn]struct{}
}

// NewAdbd serves dev on 127.0.0.1 at a free port outside 5555-5585. It
// panics if it cannot listen, as httptest.NewServer does.
func NewAdbd(dev Device) *Adbd {
	a, err := ListenAdbd("127.0.0.1:0", dev)
	if err != nil {
		panic(fmt.Sprintf("adbtest: %v", err))
	}
	return a
}

// ErrReservedPort is returned for a listen address in 5555-5585: the stock
// adb server probes those ports for emulators, so a listener there would
// show up in every developer's `adb devices`.
var ErrReservedPort = errors.New("ports 5555-5585 are reserved for emulators")

// ListenAdbd serves dev on addr, which must be a loopback address; port 0
// picks a free one.
func ListenAdbd(addr string, dev Device) (*Adbd, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("adbtest adbd: listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("adbtest adbd: listen address %q is not a loopback address", addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("adbtest adbd: listen address %q: bad port", addr)
	}
	if reservedPort(port) {
		return nil, fmt.Errorf("adbtest adbd: listen address %q: %w", addr, ErrReservedPort)
	}
	var ln net.Listener
	for range 10 {
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("adbtest adbd: %w", err)
		}
		if !reservedPort(ln.Addr().(*net.TCPAddr).Port) {
			break
		}
		ln.Close()
		ln = nil
	}
	if ln == nil {
		return nil, fmt.Errorf("adbtest adbd: no free port outside 5555-5585 on %s", host)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &Adbd{
		Addr:   ln.Addr().String(),
		dev:    dev,
		ln:     ln,
		ctx:    ctx,
		cancel: cancel,
		conns:  map[*adbdConn]struct{}{},
	}
	a.wg.Add(1)
	go a.accept()
	return a, nil
}

// Port is the listener's TCP port.
func (a *Adbd) Port() int { return a.ln.Addr().(*net.TCPAddr).Port }

// Streams is how many streams hosts have opened on the device so far,
// refused ones included.
func (a *Adbd) Streams() int { return int(a.streams.Load()) }

// DropConnections cuts every host connection without a goodbye, as a phone
// that vanishes from the network does; the listener stays, so a host may
// reconnect.
func (a *Adbd) DropConnections() {
	a.mu.Lock()
	conns := make([]*adbdConn, 0, len(a.conns))
	for c := range a.conns {
		conns = append(conns, c)
	}
	a.mu.Unlock()
	for _, c := range conns {
		c.c.Close()
	}
}

// Close stops listening, cuts every connection and waits for the services
// it runs to return.
func (a *Adbd) Close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.ln.Close()
	// Connections go first, so that services cut short send no goodbye.
	a.DropConnections()
	a.cancel()
	a.wg.Wait()
}

func (a *Adbd) accept() {
	defer a.wg.Done()
	for {
		c, err := a.ln.Accept()
		if err != nil {
			return
		}
		ac := &adbdConn{d: a, c: c, maxData: adbwire.MaxPayload, streams: map[uint32]*adbStream{}}
		ac.ctx, ac.cancel = context.WithCancel(a.ctx)
		a.mu.Lock()
		if a.closed {
			a.mu.Unlock()
			c.Close()
			return
		}
		a.conns[ac] = struct{}{}
		a.wg.Add(1)
		a.mu.Unlock()
		go func() {
			defer a.wg.Done()
			ac.serve()
			a.mu.Lock()
			delete(a.conns, ac)
			a.mu.Unlock()
		}()
	}
}

// banner is the CNXN payload a phone sends: its identity and features.
func banner(dev Device) string {
	name, model, device := dev.Product()
	return fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s;",
		name, model, device, strings.Join(servedFeatures(dev), ","))
}

// servedFeatures is dev's feature list without the ones these endpoints do
// not implement, so that clients never pick them.
func servedFeatures(dev Device) []string {
	return slices.DeleteFunc(slices.Clone(dev.Features()), func(f string) bool {
		return f == "delayed_ack" || f == "abb" || f == "abb_exec" || strings.HasPrefix(f, "sendrecv_v2")
	})
}

// adbdConn is one host's connection: a multiplex of streams.
type adbdConn struct {
	d      *Adbd
	c      net.Conn
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	wmu sync.Mutex // serializes whole messages on c

	mu        sync.Mutex
	connected bool
	maxData   uint32
	verifySum bool
	nextID    uint32
	streams   map[uint32]*adbStream
	gone      bool
}

func (ac *adbdConn) serve() {
	defer func() {
		ac.c.Close()
		ac.cancel()
		ac.mu.Lock()
		ac.gone = true
		streams := make([]*adbStream, 0, len(ac.streams))
		for _, s := range ac.streams {
			streams = append(streams, s)
		}
		ac.streams = map[uint32]*adbStream{}
		ac.mu.Unlock()
		for _, s := range streams {
			s.shut(false)
		}
		ac.wg.Wait()
	}()
	for {
		ac.mu.Lock()
		verify := ac.verifySum
		ac.mu.Unlock()
		m, err := adbwire.ReadMessage(ac.c, adbwire.MaxPayload, verify)
		if err != nil {
			return
		}
		ac.handle(m)
	}
}

// handle acts on one message from the host. It never blocks on a stream.
func (ac *adbdConn) handle(m adbwire.Message) {
	if m.Command == adbwire.CmdCNXN {
		ac.connect(m)
		return
	}
	ac.mu.Lock()
	connected := ac.connected
	s := ac.streams[m.Arg1]
	ac.mu.Unlock()
	if !connected {
		// A phone ignores everything before the handshake.
		return
	}
	switch m.Command {
	case adbwire.CmdOPEN:
		name := strings.TrimRight(string(m.Data), "\x00")
		ac.wg.Add(1)
		go func() {
			defer ac.wg.Done()
			ac.open(m.Arg0, name)
		}()
	case adbwire.CmdOKAY:
		if s != nil && s.remote == m.Arg0 {
			s.acked()
		}
	case adbwire.CmdWRTE:
		if s != nil && s.remote == m.Arg0 && !s.deliver(m.Data) {
			// A host that ignores flow control would make us hold
			// unbounded data; a phone's adbd drops it too.
			ac.c.Close()
		}
	case adbwire.CmdCLSE:
		if s != nil && (m.Arg0 == 0 || s.remote == m.Arg0) {
			s.shut(false)
		}
	}
	// SYNC, AUTH, STLS and unknown commands mean nothing to a phone with
	// authentication and TLS off.
}

// connect answers CNXN with the lower of both versions and payload sizes.
func (ac *adbdConn) connect(m adbwire.Message) {
	version := min(m.Arg0, adbwire.Version)
	if version < adbwire.VersionMin {
		version = adbwire.VersionMin
	}
	maxData := min(m.Arg1, adbwire.MaxPayload)
	if maxData == 0 {
		// A host that states no limit gets what the first adb versions
		// took (MAX_PAYLOAD_V1).
		maxData = 4096
	}
	ac.mu.Lock()
	ac.connected = true
	ac.maxData = maxData
	ac.verifySum = version < adbwire.Version
	ac.mu.Unlock()
	_ = ac.send(adbwire.CmdCNXN, version, maxData, []byte(banner(ac.d.dev)))
}

// send writes one message.
func (ac *adbdConn) send(cmd, arg0, arg1 uint32, data []byte) error {
	b := adbwire.AppendMessage(make([]byte, 0, adbwire.HeaderSize+len(data)), adbwire.Message{Command: cmd, Arg0: arg0, Arg1: arg1, Data: data})
	ac.wmu.Lock()
	defer ac.wmu.Unlock()
	_, err := ac.c.Write(b)
	return err
}

// open runs the service a host asked for on a new stream.
func (ac *adbdConn) open(remote uint32, name string) {
	ac.d.streams.Add(1)
	if remote == 0 {
		return
	}
	svc, err := openService(ac.ctx, ac.d.dev, name)
	if err != nil {
		_ = ac.send(adbwire.CmdCLSE, 0, remote, nil)
		return
	}
	ac.mu.Lock()
	if ac.gone {
		ac.mu.Unlock()
		svc.abandon()
		return
	}
	ac.nextID++
	if ac.nextID == 0 {
		ac.nextID++
	}
	s := &adbStream{conn: ac, local: ac.nextID, remote: remote, maxData: ac.maxData,
		okay: make(chan struct{}, 1), done: make(chan struct{})}
	s.cond.L = &s.mu
	ac.streams[s.local] = s
	ac.mu.Unlock()
	if ac.send(adbwire.CmdOKAY, s.local, remote, nil) != nil {
		s.shut(false)
		svc.abandon()
		return
	}
	svc.run(s)
	s.Close()
}

// adbStream is one stream of a connection, as an io.ReadWriteCloser with
// adb's flow control: one WRTE in flight each way until the other side
// answers OKAY.
type adbStream struct {
	conn          *adbdConn
	local, remote uint32
	maxData       uint32

	wmu  sync.Mutex    // one Write at a time
	okay chan struct{} // the host acknowledged our last WRTE
	done chan struct{} // closed when the stream ends

	mu     sync.Mutex
	cond   sync.Cond
	in     []byte // data the host wrote that the service has not read
	closed bool
}

var errStreamClosed = errors.New("adb stream closed")

// Read returns what the host wrote; draining it acknowledges the WRTE, which
// lets the host send the next one.
func (s *adbStream) Read(p []byte) (int, error) {
	s.mu.Lock()
	for len(s.in) == 0 && !s.closed {
		s.cond.Wait()
	}
	if len(s.in) == 0 {
		s.mu.Unlock()
		return 0, io.EOF
	}
	n := copy(p, s.in)
	s.in = s.in[n:]
	ack := len(s.in) == 0 && !s.closed
	s.mu.Unlock()
	if ack {
		_ = s.conn.send(adbwire.CmdOKAY, s.local, s.remote, nil)
	}
	return n, nil
}

// Write sends p in WRTEs of at most the agreed payload, each after the host
// acknowledged the previous one.
func (s *adbStream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := 0
	for len(p) > 0 {
		select {
		case <-s.done:
			return n, errStreamClosed
		default:
		}
		chunk := p[:min(len(p), int(s.maxData))]
		if err := s.conn.send(adbwire.CmdWRTE, s.local, s.remote, chunk); err != nil {
			return n, fmt.Errorf("adbtest adbd: %w", err)
		}
		select {
		case <-s.okay:
		case <-s.done:
			return n, errStreamClosed
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	return n, nil
}

// Close ends the stream from the device side with CLSE.
func (s *adbStream) Close() error {
	s.shut(true)
	return nil
}

// shut ends the stream once; tell says whether to send CLSE (not when the
// host closed it or the connection is gone).
func (s *adbStream) shut(tell bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	s.cond.Broadcast()
	s.mu.Unlock()
	s.conn.mu.Lock()
	if s.conn.streams[s.local] == s {
		delete(s.conn.streams, s.local)
	}
	s.conn.mu.Unlock()
	if tell {
		_ = s.conn.send(adbwire.CmdCLSE, s.local, s.remote, nil)
	}
}

func (s *adbStream) acked() {
	select {
	case s.okay <- struct{}{}:
	default:
	}
}

// maxUnread bounds what a stream holds for its service: flow control lets
// a well-behaved host have one payload in flight.
const maxUnread = 4 * adbwire.MaxPayload

// deliver queues a WRTE's data for the service; it reports false when the
// host sent far more than flow control allows.
func (s *adbStream) deliver(data []byte) bool {
	if len(data) == 0 {
		_ = s.conn.send(adbwire.CmdOKAY, s.local, s.remote, nil)
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return true
	}
	if len(s.in)+len(data) > maxUnread {
		return false
	}
	s.in = append(s.in, data...)
	s.cond.Broadcast()
	return true
}
