package adbtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path"
	"strings"
	"sync"
	"testing/fstest"
	"time"
)

// FakeDevice is a Device described by data, in the spirit of fstest.MapFS:
// canned command results, an in-memory file system and port handlers. Its
// zero value is a device that knows no command, holds no file and listens
// on no port. Fields must not change while it is served, except through
// the Device methods (pushes write to Files).
type FakeDevice struct {
	// SerialNo is the serial; default "fake-device".
	SerialNo string
	// ProductName, ModelName and DeviceName are ro.product.name, .model and
	// .device; defaults "fake", "Fake Phone", "fake".
	ProductName, ModelName, DeviceName string
	// FeatureList is what the device advertises; default shell_v2, cmd,
	// stat_v2 and ls_v2.
	FeatureList []string
	// Commands answers a shell command line, matched exactly.
	Commands map[string]FakeResult
	// Handler, if set, runs the command lines Commands does not hold.
	// Otherwise they fail with status 127, as sh does for unknown commands.
	Handler func(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int
	// Files is the device's file system, keyed by path without the leading
	// slash ("sdcard/a.txt" is /sdcard/a.txt).
	Files fstest.MapFS
	// Ports serves device TCP ports: each connection to the port runs the
	// handler with the device end of an in-memory pipe.
	Ports map[int]func(net.Conn)

	mu sync.Mutex // guards Files
}

// FakeResult is a canned command result.
type FakeResult struct {
	Stdout, Stderr string
	Exit           int
}

var _ Device = (*FakeDevice)(nil)

// Serial implements Device.
func (d *FakeDevice) Serial() string {
	if d.SerialNo == "" {
		return "fake-device"
	}
	return d.SerialNo
}

// Product implements Device.
func (d *FakeDevice) Product() (name, model, device string) {
	name, model, device = d.ProductName, d.ModelName, d.DeviceName
	if name == "" {
		name = "fake"
	}
	if model == "" {
		model = "Fake Phone"
	}
	if device == "" {
		device = "fake"
	}
	return name, model, device
}

// Features implements Device.
func (d *FakeDevice) Features() []string {
	if d.FeatureList == nil {
		return []string{"shell_v2", "cmd", "stat_v2", "ls_v2"}
	}
	return d.FeatureList
}

// Shell implements Device.
func (d *FakeDevice) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	if r, ok := d.Commands[cmd]; ok {
		_, _ = io.WriteString(stdout, r.Stdout)
		_, _ = io.WriteString(stderr, r.Stderr)
		return r.Exit
	}
	if d.Handler != nil {
		return d.Handler(ctx, cmd, stdin, stdout, stderr)
	}
	name, _, _ := strings.Cut(strings.TrimSpace(cmd), " ")
	fmt.Fprintf(stderr, "/system/bin/sh: %s: inaccessible or not found\n", name)
	return 127
}

// fsPath turns a device path into a Files key.
func fsPath(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "" {
		return "."
	}
	return p
}

// Stat implements Device.
func (d *FakeDevice) Stat(p string) (fs.FileInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fs.Stat(d.Files, fsPath(p))
}

// ReadDir implements Device.
func (d *FakeDevice) ReadDir(p string) ([]fs.FileInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	entries, err := fs.ReadDir(d.Files, fsPath(p))
	if err != nil {
		return nil, err
	}
	infos := make([]fs.FileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			return nil, err
		}
		infos = append(infos, fi)
	}
	return infos, nil
}

// Open implements Device.
func (d *FakeDevice) Open(p string) (io.ReadCloser, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.Files[fsPath(p)]
	if !ok {
		// Directories implied by deeper paths exist too.
		if fi, err := fs.Stat(d.Files, fsPath(p)); err == nil && fi.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("is a directory")}
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	if f.Mode.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("is a directory")}
	}
	return io.NopCloser(bytes.NewReader(f.Data)), nil
}

// Create implements Device; the file appears in Files when the writer closes.
func (d *FakeDevice) Create(p string, mode fs.FileMode, mtime time.Time) (io.WriteCloser, error) {
	key := fsPath(p)
	if key == "." {
		return nil, &fs.PathError{Op: "create", Path: p, Err: fs.ErrInvalid}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if fi, err := fs.Stat(d.Files, key); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "create", Path: p, Err: fmt.Errorf("is a directory")}
	}
	return &fakeWriter{d: d, key: key, mode: mode, mtime: mtime}, nil
}

type fakeWriter struct {
	d     *FakeDevice
	key   string
	mode  fs.FileMode
	mtime time.Time
	buf   bytes.Buffer
}

func (w *fakeWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

func (w *fakeWriter) Close() error {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	if w.d.Files == nil {
		w.d.Files = fstest.MapFS{}
	}
	w.d.Files[w.key] = &fstest.MapFile{Data: bytes.Clone(w.buf.Bytes()), Mode: w.mode, ModTime: w.mtime}
	return nil
}

// DialTCP implements Device.
func (d *FakeDevice) DialTCP(ctx context.Context, port int) (net.Conn, error) {
	h, ok := d.Ports[port]
	if !ok {
		return nil, fmt.Errorf("dial tcp 127.0.0.1:%d: connection refused", port)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	host, dev := net.Pipe()
	go func() {
		defer dev.Close()
		h(dev)
	}()
	return host, nil
}
