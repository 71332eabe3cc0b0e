package uia2

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
)

// pipeListener is a net.Listener whose connections are net.Pipe halves, so
// the simulated device needs no port for its uiautomator2 server.
type pipeListener struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
		_ = client.Close()
		_ = server.Close()
		return nil, fmt.Errorf("uia2 dial: %w", ctx.Err())
	}
	_ = client.Close()
	_ = server.Close()
	return nil, fmt.Errorf("uia2 dial: %w", ErrClosed)
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "uia2:6790" }

// discardLogger keeps net/http from writing to the process's log: the server
// logs nothing.
func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
