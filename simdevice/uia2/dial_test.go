package uia2_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/perfgate/perfgate/simdevice/uia2"
)

func TestDial(t *testing.T) {
	srv := uia2.NewServer(shopScreen())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := srv.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Plain HTTP/1.1 over the connection, as adb forward would carry it.
	if _, err := conn.Write([]byte("GET /wd/hub/status HTTP/1.1\r\nHost: device\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status = %d; want 200", resp.StatusCode)
	}

	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	// Close ends open connections too.
	// A pipe refuses deadlines once its other end is closed; otherwise the
	// deadline keeps a broken Close from hanging the test.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Error("connection still open after Close")
	}
	if _, err := srv.Dial(ctx); !errors.Is(err, uia2.ErrClosed) {
		t.Errorf("Dial after Close = %v; want ErrClosed", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestDialCanceled(t *testing.T) {
	srv := uia2.NewServer(shopScreen())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The accept loop may win the race against the canceled context; either
	// a connection or the context's error is correct, never a hang.
	conn, err := srv.Dial(ctx)
	if err == nil {
		conn.Close()
	} else if !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a canceled context = %v; want context.Canceled", err)
	}
}
