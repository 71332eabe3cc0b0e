package adbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/adbwire"
	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/internal/testenv"
)

// TB is the part of testing.TB that StartADB uses.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}

// ADB is a stock adb server that a test started on a private loopback port,
// with its own HOME, so it neither meets the developer's server on 5037 nor
// touches ~/.android. The server runs in the foreground as the test's child
// (`adb nodaemon server`), so it cannot outlive the test, even one killed by
// its timeout (on Linux).
type ADB struct {
	// Path is the adb binary.
	Path string
	// Port is the server's port; every command runs with -P Port.
	Port int

	home   string
	t      TB
	server *exec.Cmd
	exited chan struct{} // closed when the server process is gone
}

// adbTimeout bounds every adb command StartADB's helpers run.
const adbTimeout = 60 * time.Second

// StartADB starts the stock adb server (skipping the test where adb is not
// installed, failing it under PERFGATE_REQUIRE_ADB=1) and kills it when the
// test ends.
func StartADB(t TB) *ADB {
	t.Helper()
	a := &ADB{Path: testenv.ADB(t), home: t.TempDir(), t: t}
	if err := os.MkdirAll(filepath.Join(a.home, ".android"), 0o700); err != nil {
		t.Fatalf("adbtest: %v", err)
	}
	port, release, err := reservePort()
	if err != nil {
		t.Fatalf("adbtest: %v", err)
	}
	// Registered before kill, so the port stays taken until the server
	// is gone.
	t.Cleanup(release)
	a.Port = port
	logPath := filepath.Join(a.home, "adb-server.log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("adbtest: %v", err)
	}
	a.server = exec.Command(a.Path, "-P", strconv.Itoa(port), "nodaemon", "server")
	a.server.Env = a.env()
	a.server.Stdout, a.server.Stderr = log, log
	dieWithParent(a.server)
	if err := a.server.Start(); err != nil {
		log.Close()
		t.Fatalf("adbtest: starting the adb server: %v", err)
	}
	a.exited = make(chan struct{})
	go func() {
		_ = a.server.Wait()
		log.Close()
		close(a.exited)
	}()
	// Registered after TempDir, so it runs before the directory goes.
	t.Cleanup(a.kill)
	if err := a.waitReady(); err != nil {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("adbtest: adb server on port %d: %v\n%s", port, err, b)
	}
	return a
}

// waitReady waits until the server answers host:version itself: an adb
// client run earlier would start a daemon server of its own.
func (a *ADB) waitReady() error {
	addr := a.Addr()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-a.exited:
			return fmt.Errorf("the server exited")
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			_, err = c.Write(adbwire.AppendString(nil, "host:version"))
			var reply [4]byte
			if err == nil {
				_, err = io.ReadFull(c, reply[:])
			}
			c.Close()
			if err == nil && string(reply[:]) == "OKAY" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not answering on %s after 20s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reservePort finds a free port for an adb server and holds it against
// the StartADB of other processes until release: a port is free between
// freePort's check and the server's bind, and two test binaries run at
// once (two copies of a suite) that picked the same one would share one
// server, each killing it under the other when its test ends. The hold
// is a lock file per port in the temporary directory.
func reservePort() (port int, release func(), err error) { return reservePortFrom(freePort) }

// reservePortFrom is reservePort over the ports pick offers.
func reservePortFrom(pick func() (int, error)) (port int, release func(), err error) {
	for range 20 {
		p, err := pick()
		if err != nil {
			return 0, nil, err
		}
		unlock, err := filelock.Lock(filepath.Join(os.TempDir(), fmt.Sprintf("perfgate-adb-port-%d.lock", p)), time.Millisecond)
		if err == nil {
			return p, unlock, nil
		}
		if !errors.Is(err, filelock.ErrTimeout) {
			return 0, nil, err
		}
	}
	return 0, nil, fmt.Errorf("no loopback port that another adb server of these tests does not hold")
}

// freePort finds a loopback port no one listens on, outside the ports adb
// itself uses (5037 and 5555-5585).
func freePort() (int, error) {
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if p != 5037 && !reservedPort(p) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port")
}

// Command prepares `adb -P Port args...` with the server's environment; the
// caller sets its streams and runs it. ctx should carry a deadline.
func (a *ADB) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, a.Path, append([]string{"-P", strconv.Itoa(a.Port)}, args...)...)
	cmd.Env = a.env()
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// env is the environment without the variables that would point adb at
// another server, device or key store.
func (a *ADB) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "ANDROID_") || strings.HasPrefix(k, "ADB_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+a.home,
		"TMPDIR="+a.home, // the server's log goes there
		"ANDROID_USER_HOME="+filepath.Join(a.home, ".android"),
		"ADB_LIBUSB=0",
		"ADB_MDNS=0",
	)
}

// output runs adb and returns its stdout, and its stderr inside the error.
func (a *ADB) output(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), adbTimeout)
	defer cancel()
	cmd := a.Command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("adb %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Run runs `adb -P Port args...` and returns its stdout; a failure fails
// the test.
func (a *ADB) Run(args ...string) string {
	a.t.Helper()
	out, err := a.output(args...)
	if err != nil {
		a.t.Fatalf("adbtest: %v", err)
	}
	return out
}

// Connect runs `adb connect addr`, waits until the device is online and
// returns its serial (addr itself).
func (a *ADB) Connect(addr string) string {
	a.t.Helper()
	return a.connect(a.t, addr)
}

func (a *ADB) connect(t TB, addr string) string {
	t.Helper()
	out, err := a.output("connect", addr)
	if err != nil {
		t.Fatalf("adbtest: %v", err)
	}
	if !strings.Contains(out, "connected to") {
		t.Fatalf("adbtest: adb connect %s: %s", addr, strings.TrimSpace(out))
	}
	if _, err := a.output("-s", addr, "wait-for-device"); err != nil {
		t.Fatalf("adbtest: %v", err)
	}
	return addr
}

// Addr is the server's address, what adbx.Options.Server takes.
func (a *ADB) Addr() string { return "127.0.0.1:" + strconv.Itoa(a.Port) }

// Serve serves dev as a phone in TCP mode that this server joins (NewAdbd,
// then Connect), and returns it opened through this server, ready for use,
// with its Adbd (to count its streams or drop its connections). The Adbd
// closes when t ends; t may be a subtest of the one that started the
// server, so one server can serve many subtests' devices.
func (a *ADB) Serve(t TB, dev Device) (*adbx.Device, *Adbd) {
	t.Helper()
	adbd := NewAdbd(dev)
	t.Cleanup(adbd.Close)
	d, err := openAdbx(a.Addr(), a.connect(t, adbd.Addr), nil)
	if err != nil {
		t.Fatalf("adbtest: %v", err)
	}
	return d, adbd
}

// kill stops the server, politely first.
func (a *ADB) kill() {
	if _, err := a.output("kill-server"); err != nil {
		a.t.Logf("adbtest: %v", err)
	}
	select {
	case <-a.exited:
		return
	case <-time.After(5 * time.Second):
	}
	a.t.Logf("adbtest: the adb server on port %d ignored kill-server; killing it", a.Port)
	_ = a.server.Process.Kill()
	<-a.exited
}
