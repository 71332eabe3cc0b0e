// Package pipenet is an in-memory network for tests: listeners on made-up
// "host:port" addresses whose connections are net.Pipe pairs. Nothing in it
// touches the kernel, so goroutines blocked on its connections are durably
// blocked in a testing/synctest bubble, and the bubble's fake clock can
// advance while a client waits on a server that waits on time. Create a
// Network, and listen and dial on it, inside the bubble that uses it.
package pipenet

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// A Network is a set of listeners by address. The zero value is empty and
// ready to use.
type Network struct {
	mu   sync.Mutex
	ls   map[string]*Listener
	next int // the last port Listen picked for port 0
}

// firstPort is where Listen starts picking ports for port 0.
const firstPort = 40000

// Listen listens on "host:port"; port 0 picks a free port of host from
// 40000 up, skip saying which ports not to pick.
func (n *Network) Listen(host string, port int, skip func(int) bool) (*Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ls == nil {
		n.ls = map[string]*Listener{}
	}
	if port == 0 {
		for p := max(n.next+1, firstPort); p <= 65535; p++ {
			if _, taken := n.ls[addr(host, p)]; !taken && (skip == nil || !skip(p)) {
				port = p
				break
			}
		}
		if port == 0 {
			return nil, fmt.Errorf("pipenet: listen %s:0: no free port", host)
		}
		n.next = port
	}
	a := addr(host, port)
	if _, taken := n.ls[a]; taken {
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: Addr(a), Err: syscall.EADDRINUSE}
	}
	l := &Listener{n: n, addr: Addr(a), port: port, conns: make(chan net.Conn), done: make(chan struct{})}
	n.ls[a] = l
	return l, nil
}

// Dial connects to the listener at address, as net.Dialer.DialContext
// does; network must be "tcp". With no listener there, the error wraps
// syscall.ECONNREFUSED, as a closed port's would.
func (n *Network) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if network != "tcp" && network != "tcp4" {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: Addr(address), Err: net.UnknownNetworkError(network)}
	}
	n.mu.Lock()
	l := n.ls[address]
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: Addr(address), Err: syscall.ECONNREFUSED}
	}
	return l.dial(ctx)
}

func addr(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// A Listener accepts the connections dialled to its address.
type Listener struct {
	n         *Network
	addr      Addr
	port      int
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

// Port is the port the listener listens on.
func (l *Listener) Port() int { return l.port }

func (l *Listener) dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		client.Close()
		server.Close()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: l.addr, Err: syscall.ECONNREFUSED}
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: l.addr, Err: ctx.Err()}
	}
}

// Accept waits for the next connection; after Close it returns an error
// matching net.ErrClosed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
}

// Close stops the listener and frees its address; connections already
// accepted stay open.
func (l *Listener) Close() error {
	first := false
	l.closeOnce.Do(func() {
		first = true
		close(l.done)
		l.n.mu.Lock()
		if l.n.ls[string(l.addr)] == l {
			delete(l.n.ls, string(l.addr))
		}
		l.n.mu.Unlock()
	})
	if !first {
		return &net.OpError{Op: "close", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
	return nil
}

// Addr is the listener's address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Addr is a pipenet address, "host:port".
type Addr string

// Network is "tcp", so code that checks an address's network treats it as
// one.
func (Addr) Network() string  { return "tcp" }
func (a Addr) String() string { return string(a) }
