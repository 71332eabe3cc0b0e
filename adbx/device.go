package adbx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultServer is the adb server's address when neither Options.Server nor
// the environment ($ADB_SERVER_SOCKET, $ANDROID_ADB_SERVER_PORT) says
// otherwise.
const DefaultServer = "127.0.0.1:5037"

// DefaultTimeout bounds each device call whose context has no deadline.
const DefaultTimeout = 10 * time.Second

// Options say which device Open picks and how calls to it are bounded. The
// zero value picks the device the way the adb command does.
type Options struct {
	// Serial is the device's serial, as `adb devices` lists it. Default:
	// $ANDROID_SERIAL, else the only attached device.
	Serial string
	// Server is the adb server's "host:port". Default, as the adb command
	// picks it: $ADB_SERVER_SOCKET ("tcp:host:port" or "tcp:port"), else
	// $ANDROID_ADB_SERVER_ADDRESS and $ANDROID_ADB_SERVER_PORT (host
	// 127.0.0.1 and port 5037 where unset), else DefaultServer.
	Server string
	// Timeout is the deadline of each call whose context has none.
	// Default DefaultTimeout.
	Timeout time.Duration
	// MaxOutput bounds the bytes one Shell or Batch call reads, stdout and
	// stderr together (a batch's commands together): a command that prints
	// more is stopped and the call fails with an *OutputError. Default
	// DefaultMaxOutput. Stream reads without a bound.
	MaxOutput int64
	// Dial connects to the adb server; every call of the Device opens its
	// connections with it. Default: TCP, as net.Dialer.DialContext. A
	// test serves an in-memory adb server with it (adbtest.NewPipeServer),
	// whose connections, unlike sockets, let a testing/synctest bubble's
	// clock advance while a call waits on the server.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// dialFunc is Options.Dial's type.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// A Device is one attached phone, emulator or simulated device, reached
// through an adb server. Its methods are safe for concurrent use; each call
// opens its own connection to the server.
type Device struct {
	serial    string
	server    string
	dial      dialFunc
	timeout   time.Duration
	maxOutput int64 // Options.MaxOutput; outputLimit applies the default
	features  map[string]bool
	state     DeviceInfo
}

// DeviceInfo is one row of `adb devices -l`.
type DeviceInfo struct {
	Serial string
	State  string // "device", "offline", "unauthorized", "no permissions", …
	Model  string // as adb lists it, with spaces turned to '_'; may be empty
}

// String formats the row as errors list it: "serial (state, model m)".
func (i DeviceInfo) String() string {
	s := i.Serial + " (" + i.State
	if i.Model != "" {
		s += ", model " + i.Model
	}
	return s + ")"
}

// Open connects to the adb server, picks a device and learns its features.
// Only devices in the "device" state count when none is named (an
// unauthorized or offline phone is listed in errors but never picked). With
// several attached and none named it fails with ErrManyDevices, listing
// them with state and model; with none usable, ErrNoDevice.
func Open(ctx context.Context, opt Options) (*Device, error) {
	server, err := serverAddr(opt.Server, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("adbx open: %w", err)
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := deadline(ctx, timeout)
	defer cancel()
	list, err := hostQuery(ctx, opt.Dial, server, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("adbx open: list devices: %w", err)
	}
	devs := parseDevices(list)
	serial := opt.Serial
	if serial == "" {
		serial = os.Getenv("ANDROID_SERIAL")
	}
	info, err := pickDevice(devs, serial)
	if err != nil {
		return nil, fmt.Errorf("adbx open: %w", err)
	}
	feats, err := hostQuery(ctx, opt.Dial, server, "host-serial:"+info.Serial+":features")
	if err != nil {
		return nil, fmt.Errorf("adbx open %s: features: %w", info.Serial, deviceErr(err))
	}
	d := &Device{serial: info.Serial, server: server, dial: opt.Dial, timeout: timeout, maxOutput: opt.MaxOutput, features: map[string]bool{}, state: info}
	for _, f := range strings.Split(strings.TrimSpace(feats), ",") {
		if f != "" {
			d.features[f] = true
		}
	}
	return d, nil
}

// serverAddr resolves the adb server address as the adb command does: the
// option, else $ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_ADDRESS and
// $ANDROID_ADB_SERVER_PORT, else the default.
func serverAddr(opt string, getenv func(string) string) (string, error) {
	if opt != "" {
		if _, _, err := net.SplitHostPort(opt); err != nil {
			return "", fmt.Errorf("server %q: want host:port: %w", opt, err)
		}
		return opt, nil
	}
	if env := getenv("ADB_SERVER_SOCKET"); env != "" {
		return socketAddr(env)
	}
	host, port := getenv("ANDROID_ADB_SERVER_ADDRESS"), getenv("ANDROID_ADB_SERVER_PORT")
	if host == "" && port == "" {
		return DefaultServer, nil
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "5037"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("ANDROID_ADB_SERVER_PORT=%q: want a port from 1 to 65535", port)
	}
	return net.JoinHostPort(host, port), nil
}

// socketAddr reads an ADB_SERVER_SOCKET value.
func socketAddr(env string) (string, error) {
	rest, ok := strings.CutPrefix(env, "tcp:")
	if !ok {
		return "", fmt.Errorf("ADB_SERVER_SOCKET=%q: only tcp:host:port and tcp:port are supported", env)
	}
	host, port := "127.0.0.1", rest
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		host, port = rest[:i], rest[i+1:]
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("ADB_SERVER_SOCKET=%q: bad port %q", env, port)
	}
	if host == "" {
		return "", fmt.Errorf("ADB_SERVER_SOCKET=%q: empty host", env)
	}
	return net.JoinHostPort(host, port), nil
}

// parseDevices reads `adb devices -l` ("serial state key:value…" lines).
func parseDevices(list string) []DeviceInfo {
	var devs []DeviceInfo
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		d := DeviceInfo{Serial: f[0], State: f[1]}
		if f[1] == "no" && len(f) > 2 && f[2] == "permissions" {
			d.State = "no permissions"
		}
		for _, kv := range f[2:] {
			if m, ok := strings.CutPrefix(kv, "model:"); ok {
				d.Model = m
			}
		}
		devs = append(devs, d)
	}
	return devs
}

// pickDevice chooses the device serial names, else the only one online.
func pickDevice(devs []DeviceInfo, serial string) (DeviceInfo, error) {
	listing := func() string {
		if len(devs) == 0 {
			return "none attached"
		}
		s := make([]string, len(devs))
		for i, d := range devs {
			s[i] = d.String()
		}
		return "attached: " + strings.Join(s, ", ")
	}
	if serial != "" {
		for _, d := range devs {
			if d.Serial == serial {
				if d.State != "device" {
					return d, fmt.Errorf("%w: device %q is %s", ErrNoDevice, serial, d.State)
				}
				return d, nil
			}
		}
		return DeviceInfo{}, fmt.Errorf("%w: device %q not found; %s", ErrNoDevice, serial, listing())
	}
	var online []DeviceInfo
	for _, d := range devs {
		if d.State == "device" {
			online = append(online, d)
		}
	}
	switch len(online) {
	case 1:
		return online[0], nil
	case 0:
		return DeviceInfo{}, fmt.Errorf("%w: %s", ErrNoDevice, listing())
	}
	return DeviceInfo{}, fmt.Errorf("%w: %s; set Options.Serial or ANDROID_SERIAL", ErrManyDevices, listing())
}

// Serial is the device's serial number.
func (d *Device) Serial() string { return d.serial }

// Info is the device's row in `adb devices -l` when it was opened.
func (d *Device) Info() DeviceInfo { return d.state }

// Server is the adb server's "host:port" the device is reached through.
func (d *Device) Server() string { return d.server }

// Dial connects to addr the way the device's calls reach the adb server
// (Options.Dial, else TCP): how a client reaches the local port of a
// Forward, which is on the server's host.
func (d *Device) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.dial != nil {
		return d.dial(ctx, network, addr)
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// HasFeature says whether the device advertised an adb feature such as
// "shell_v2".
func (d *Device) HasFeature(name string) bool { return d.features[name] }

// deviceErr marks a transport failure ("device 'x' not found") as the
// device being gone.
func deviceErr(err error) error {
	var ae *AdbError
	if errors.As(err, &ae) && (strings.Contains(ae.Message, "not found") || strings.Contains(ae.Message, "offline")) {
		return fmt.Errorf("%w: %w", ErrDeviceGone, err)
	}
	return err
}

// service opens a device service (such as "shell,v2,raw:…" or "sync:") on
// a fresh connection switched to the device.
func (d *Device) service(ctx context.Context, name string) (*conn, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("request holds a NUL byte: %q", clip([]byte(name)))
	}
	c, err := dial(ctx, d.dial, d.server)
	if err != nil {
		return nil, err
	}
	if err := c.request("host:transport:" + d.serial); err != nil {
		c.Close()
		return nil, deviceErr(err)
	}
	if err := c.request(name); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// hostRequest sends a host request about this device and checks the
// second OKAY that forward requests answer with.
func (d *Device) hostRequest(ctx context.Context, req string) (*conn, error) {
	c, err := dial(ctx, d.dial, d.server)
	if err != nil {
		return nil, err
	}
	if err := c.request("host-serial:" + d.serial + ":" + req); err != nil {
		c.Close()
		return nil, deviceErr(err)
	}
	if err := c.status(req); err != nil {
		c.Close()
		return nil, deviceErr(err)
	}
	return c, nil
}

// quoteCmd shortens a command for an error message.
func quoteCmd(cmd string) string { return strconv.Quote(string(clip([]byte(cmd)))) }

// trimSpace is bytes.TrimSpace on a copy-free string view.
func trimSpace(b []byte) string { return string(bytes.TrimSpace(b)) }
