package simdevice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/shell"
	"github.com/perfgate/perfgate/simdevice/internal/vfs"
	"github.com/perfgate/perfgate/simdevice/uia2"
)

// UIAutomatorPort is the device TCP port the uiautomator2 server listens on,
// reached through `adb forward tcp:X tcp:6790`.
const UIAutomatorPort = 6790

// ErrClosed is returned by the methods of a Device after Close.
var ErrClosed = errors.New("simdevice: device closed")

// Device is a simulated Android phone: what adbd would serve over USB. It
// runs shell command lines, serves the sync service's files and accepts TCP
// connections to device ports. It implements adbtest.Device.
//
// A Device is safe for concurrent use: adb opens one stream per command and
// many may run at once.
type Device struct {
	cfg   Config
	world *World
	fs    *vfs.FS // the file tree as the shell user (or root) sees it
	sh    *shell.Shell

	ctx    context.Context // ends at Close, ending every running shell
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup

	uiaOnce sync.Once
	uia     tcpDialer
	uiaErr  error

	perfettoRuns perfettoRuns
}

// tcpDialer is a server inside the device that DialTCP connects to.
type tcpDialer interface {
	Dial(ctx context.Context) (net.Conn, error)
}

// New builds a device from cfg, filling defaults (Serial "perfgate-sim",
// API 33, Cores 8, a Model of that API level's era). It fails when cfg
// asks for something the simulation cannot do, such as API 29.
func New(cfg Config) (*Device, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w, err := newWorld(cfg)
	if err != nil {
		return nil, fmt.Errorf("simdevice: new world: %w", err)
	}
	now := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	d := &Device{
		cfg:    cfg,
		world:  w,
		ctx:    ctx,
		cancel: cancel,
	}
	progs := programs(w)
	progs["perfetto"] = d.perfetto
	cfg.Quirks.hugeOutputs(progs)
	cfg.Quirks.failingCommands(progs)
	commands := cfg.Quirks.commands(progs)
	d.fs = &vfs.FS{
		Tree:      vfs.NewTree(now),
		Rendered:  w,
		Root:      cfg.Root,
		BuildProp: d.buildProp,
		Commands:  commands,
		Boot:      now,
	}
	w.files = d.fs
	w.bgProcs = d.perfettoProcs
	p := products[cfg.API]
	_, _, host := d.Product()
	d.sh = shell.New(shell.Config{
		FS:          d.fs,
		Root:        cfg.Root,
		Hostname:    host,
		Kernel:      p.kernel,
		KernelBuild: p.kernelBuild,
		Cores:       cfg.Cores,
		Online:      cfg.online(),
		Commands:    commands,
		Programs:    progs,
		Kill:        d.killPerfetto,
		Wall:        w.Wall,
		Props:       w.Props,
	})
	return d, nil
}

// Close ends every running shell command, waits for them to return and stops
// the simulation. It returns the first error writing Config.Truth, if any,
// since a truth stream cut short must not pass for a whole one. Calling
// Close again does nothing.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.running.Wait()
	if c, ok := d.uia.(io.Closer); ok {
		c.Close()
	}
	d.world.Close()
	if err := d.world.truthErr(); err != nil {
		return fmt.Errorf("simdevice: write truth: %w", err)
	}
	return nil
}

// enter registers one running operation; it fails after Close.
func (d *Device) enter() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	d.running.Add(1)
	return nil
}

// World returns the simulation behind the device, for tests that compare
// measurements with the ground truth and for the CLI.
func (d *Device) World() *World { return d.world }

// Config returns the device's configuration with its defaults filled in,
// including the refresh rate and workload the World chose.
func (d *Device) Config() Config {
	cfg := d.cfg
	if cfg.RefreshHz == 0 {
		if p := d.world.RefreshPeriod(); p > 0 {
			cfg.RefreshHz = float64(time.Second) / float64(p)
		}
	}
	if cfg.Workload == nil {
		cfg.Workload = d.world.Workload()
	}
	return cfg
}

// Serial is the serial number adb lists.
func (d *Device) Serial() string { return d.cfg.Serial }

// Product returns ro.product.name, ro.product.model and ro.product.device.
// The World's properties win over the built-in table of phones.
func (d *Device) Product() (name, model, device string) {
	p := products[d.cfg.API]
	name, model, device = p.name, d.cfg.Model, p.device
	if v, ok := d.world.Prop("ro.product.name"); ok && v != "" {
		name = v
	}
	if v, ok := d.world.Prop("ro.product.model"); ok && v != "" {
		model = v
	}
	if v, ok := d.world.Prop("ro.product.device"); ok && v != "" {
		device = v
	}
	return name, model, device
}

// Features lists the adbd features the device advertises in its banner:
// those adbd of the configured API level sends, without the sendrecv_v2
// family, so that adb falls back to the v1 sync protocol (SEND/RECV)
// instead of compressed transfers.
func (d *Device) Features() []string {
	f := []string{"shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir", "fixed_push_symlink_timestamp"}
	if d.cfg.API >= 29 {
		f = append(f, "apex", "abb", "abb_exec")
	}
	if d.cfg.API >= 30 {
		f = append(f, "remount_shell", "track_app")
	}
	sort.Strings(f)
	return f
}

// buildProp renders /system/build.prop from the World's properties.
func (d *Device) buildProp() []byte {
	props := d.world.Props()
	keys := make([]string, 0, len(props))
	for k := range props {
		if strings.HasPrefix(k, "ro.") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("\n# begin build properties\n# autogenerated by buildinfo.sh\n")
	for _, k := range keys {
		b.WriteString(k + "=" + props[k] + "\n")
	}
	b.WriteString("# end build properties\n")
	return []byte(b.String())
}

// syncPath turns a sync-service path into a canonical one; adb always sends
// absolute paths.
func syncPath(op, p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", &fs.PathError{Op: op, Path: p, Err: fs.ErrInvalid}
	}
	return vfs.Clean(p, "/"), nil
}

// Stat returns what stat(2) would for p, for the sync service's STAT/STA2.
// The sync service runs as the shell user (or root with Config.Root).
func (d *Device) Stat(p string) (fs.FileInfo, error) {
	cp, err := syncPath("stat", p)
	if err != nil {
		return nil, err
	}
	fi, err := d.fs.Stat(cp)
	if err != nil {
		return nil, vfs.Rewrap("stat", p, err)
	}
	return fi, nil
}

// ReadDir lists directory p sorted by name, for the sync service's LIST.
func (d *Device) ReadDir(p string) ([]fs.FileInfo, error) {
	cp, err := syncPath("readdir", p)
	if err != nil {
		return nil, err
	}
	fis, err := d.fs.ReadDir(cp)
	if err != nil {
		return nil, vfs.Rewrap("readdir", p, err)
	}
	return fis, nil
}

// Open returns the content of file p, for `adb pull`. Files under /proc and
// /sys are rendered by the World at the moment of the call.
func (d *Device) Open(p string) (io.ReadCloser, error) {
	cp, err := syncPath("open", p)
	if err != nil {
		return nil, err
	}
	data, err := d.fs.ReadFile(cp)
	if err != nil {
		return nil, vfs.Rewrap("open", p, err)
	}
	switch broken, short := d.cfg.Quirks.pullFault(cp); {
	case broken:
		// The first half arrives, then the read fails: the sync service
		// answers FAIL with the error.
		eio := &fs.PathError{Op: "read", Path: p, Err: syscall.EIO}
		return io.NopCloser(io.MultiReader(strings.NewReader(string(data[:len(data)/2])), errReader{eio})), nil
	case short:
		return io.NopCloser(strings.NewReader(string(data[:len(data)/2]))), nil
	}
	return io.NopCloser(strings.NewReader(string(data))), nil
}

// errReader fails every read with its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// Create starts writing file p, for `adb push`. Missing parent directories
// are made (the fixed_push_mkdir feature). The file appears, with mode and
// mtime, when the returned writer is closed, so an interrupted push leaves
// nothing behind. Places outside the writable tree fail: errors.Is(err,
// syscall.EROFS) under /system, /vendor and the other read-only partitions,
// errors.Is(err, fs.ErrPermission) elsewhere.
func (d *Device) Create(p string, mode fs.FileMode, mtime time.Time) (io.WriteCloser, error) {
	cp, err := syncPath("create", p)
	if err != nil {
		return nil, err
	}
	v := d.fs
	if err := v.MayWrite(cp); err != nil {
		return nil, &fs.PathError{Op: "create", Path: p, Err: err}
	}
	if fi, err := v.Stat(cp); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "create", Path: p, Err: syscall.EISDIR}
	}
	if dir := cp[:strings.LastIndex(cp, "/")]; dir != "" {
		if err := v.Mkdir(dir, true, time.Now()); err != nil {
			return nil, vfs.Rewrap("create", p, err)
		}
	}
	if mode.Perm() == 0 {
		mode |= 0o644
	}
	return &pushFile{v: v, p: cp, orig: p, mode: mode, mtime: mtime}, nil
}

// pushFile collects a pushed file and commits it on Close.
type pushFile struct {
	v     *vfs.FS
	p     string
	orig  string
	mode  fs.FileMode
	mtime time.Time
	buf   []byte
	done  bool
}

func (f *pushFile) Write(b []byte) (int, error) {
	if f.done {
		return 0, &fs.PathError{Op: "write", Path: f.orig, Err: fs.ErrClosed}
	}
	f.buf = append(f.buf, b...)
	return len(b), nil
}

func (f *pushFile) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	mtime := f.mtime
	if mtime.IsZero() {
		mtime = time.Now()
	}
	if err := f.v.WriteFile(f.p, f.buf, f.mode, mtime, false); err != nil {
		return vfs.Rewrap("create", f.orig, err)
	}
	return nil
}

// Shell runs a command line as `/system/bin/sh -c cmd` would on the device
// and returns its exit status. It returns soon after ctx ends or the device
// closes, with status 130 if the command had not finished. stdout and stderr
// may be the same writer; writes to each are serialised.
//
// stdin may be nil: reads then see end of file. An *os.File is read
// directly. Any other reader is copied into a pipe by a goroutine that ends
// when the reader does, so it should end with the stream, as an adb
// stream's stdin does. An empty cmd with a stdin runs the script read from
// stdin, as `adb shell` without a command does.
func (d *Device) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := d.enter(); err != nil {
		if stderr != nil {
			fmt.Fprintf(stderr, "%s: %v\n", shell.Name, err)
		}
		return 255
	}
	defer d.running.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()
	return d.sh.Run(ctx, cmd, stdin, stdout, stderr)
}

// DialTCP connects to a TCP port on the device. Port 6790 is the
// uiautomator2 server; nothing else listens, and other ports fail with an
// error satisfying errors.Is(err, syscall.ECONNREFUSED).
func (d *Device) DialTCP(ctx context.Context, port int) (net.Conn, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: invalid port", port)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: %w", port, err)
	}
	if err := d.enter(); err != nil {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: %w", port, err)
	}
	defer d.running.Done()
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}, Err: syscall.ECONNREFUSED}
	if port != UIAutomatorPort {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: %w", port, refused)
	}
	d.uiaOnce.Do(func() { d.uia, d.uiaErr = newUIAServer(d.world) })
	if d.uiaErr != nil {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: %w", port, d.uiaErr)
	}
	if d.uia == nil {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: %w", port, refused)
	}
	c, err := d.uia.Dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("simdevice: dial tcp:%d: %w", port, err)
	}
	return c, nil
}

// newUIAServer starts the device's uiautomator2 server lazily, on the
// first connection to its port.
// A World without a screen has nothing listening on the port.
func newUIAServer(w *World) (tcpDialer, error) {
	screen := w.Screen()
	if screen == nil {
		return nil, nil
	}
	return uia2.NewServer(screen), nil
}
