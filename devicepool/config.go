package devicepool

import (
	"fmt"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/jsondup"
)

// Config says which adb servers a pool draws devices from and which of
// their devices it takes. The zero value takes every online device of the
// server adbx.Open would use.
type Config struct {
	// Servers are the adb servers, each "host:port" (what `adb -H host -P
	// port` reaches), "tcp:host:port" or "tcp:port" (as $ADB_SERVER_SOCKET
	// says it). Default: the server adbx.Open would use.
	Servers []string
	// Filter picks devices among those the servers list.
	Filter Filter
	// Wait bounds how long a lease waits while every device is busy.
	// Default DefaultWait.
	Wait time.Duration
	// Timeout is each device call's deadline (adbx.Options.Timeout).
	// Default adbx.DefaultTimeout.
	Timeout time.Duration
}

// Filter picks devices. A device passes when it passes every field set.
type Filter struct {
	// Models are model names, any of which a device's ro.product.model or
	// its full name ("Google Pixel 7") must equal, ignoring case.
	Models []string `json:"models,omitempty"`
	// MinAPI and MaxAPI bound the device's API level; 0 is no bound.
	MinAPI int `json:"min_api,omitempty"`
	MaxAPI int `json:"max_api,omitempty"`
	// Serial is a pattern of path.Match ("emulator-*", "10.0.0.*:5555")
	// the serial must match.
	Serial string `json:"serial,omitempty"`
}

// serialOK says whether serial matches the pattern (any when none).
func (f Filter) serialOK(serial string) bool {
	if f.Serial == "" {
		return true
	}
	ok, _ := path.Match(f.Serial, serial)
	return ok
}

// why says why the filter leaves a device out, "" when it does not.
func (f Filter) why(d procfs.DeviceFacts) string {
	if len(f.Models) > 0 {
		ok := false
		for _, m := range f.Models {
			ok = ok || strings.EqualFold(m, d.Model) || strings.EqualFold(m, d.Name())
		}
		if !ok {
			return fmt.Sprintf("model %q is not one of %q", d.Name(), f.Models)
		}
	}
	if f.MinAPI > 0 && d.API < f.MinAPI || f.MaxAPI > 0 && d.API > f.MaxAPI {
		return fmt.Sprintf("API %d outside %d..%d", d.API, f.MinAPI, f.MaxAPI)
	}
	return ""
}

// validate checks the filter's fields.
func (f Filter) validate() error {
	if _, err := path.Match(f.Serial, ""); err != nil {
		return fmt.Errorf("serial pattern %s: %w", excerpt.Quote(f.Serial), err)
	}
	if f.MinAPI < 0 || f.MaxAPI < 0 || f.MaxAPI > 0 && f.MaxAPI < f.MinAPI {
		return fmt.Errorf("API range %d..%d", f.MinAPI, f.MaxAPI)
	}
	return nil
}

func (c Config) withDefaults() (Config, error) {
	if len(c.Servers) == 0 {
		env, err := adbx.EnvServer()
		if err != nil {
			return c, fmt.Errorf("devicepool: %w", err)
		}
		c.Servers = []string{env}
	}
	servers := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		a, err := ServerAddr(s)
		if err != nil {
			return c, fmt.Errorf("devicepool: %w", err)
		}
		servers[i] = a
	}
	c.Servers = servers
	if err := c.Filter.validate(); err != nil {
		return c, fmt.Errorf("devicepool: filter: %w", err)
	}
	if c.Wait <= 0 {
		c.Wait = DefaultWait
	}
	if c.Timeout <= 0 {
		c.Timeout = adbx.DefaultTimeout
	}
	return c, nil
}

// ServerAddr turns an adb server as users write it into "host:port":
// "host:port", "tcp:host:port", "tcp:port" or a bare port; "" is
// adbx.DefaultServer.
func ServerAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return adbx.DefaultServer, nil
	}
	rest := strings.TrimPrefix(s, "tcp:")
	host, port := "127.0.0.1", rest
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		host, port = rest[:i], rest[i+1:]
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("adb server %s: want host:port, tcp:host:port or a port", excerpt.Quote(s))
	}
	if host == "" || strings.ContainsAny(host, " \t/") {
		return "", fmt.Errorf("adb server %s: bad host", excerpt.Quote(s))
	}
	return net.JoinHostPort(host, port), nil
}

// Environment variables FromEnv reads.
const (
	EnvServers = "PERFGATE_ADB_SERVERS" // comma-separated adb servers
	EnvModels  = "PERFGATE_DEVICE_MODELS"
	EnvAPI     = "PERFGATE_DEVICE_API"    // "33", "30-34", "30-" or "-33"
	EnvSerial  = "PERFGATE_DEVICE_SERIAL" // a path.Match pattern
	EnvConfig  = "PERFGATE_POOL"          // a pool config file, read first
)

// FromEnv is the pool configuration the environment gives: the file
// $PERFGATE_POOL names (see ParseConfig), then $PERFGATE_ADB_SERVERS
// ("host:port,host:port"), $PERFGATE_DEVICE_MODELS ("Pixel 7,Pixel 4a"),
// $PERFGATE_DEVICE_API ("30-34") and $PERFGATE_DEVICE_SERIAL ("emulator-*")
// over it. With none set it is the zero Config. An error names the variable
// and quotes its value.
func FromEnv() (Config, error) { return FromVars(os.Getenv) }

// FromVars is FromEnv with the variables looked up by get, so a command
// can put its flags over the environment.
func FromVars(get func(name string) string) (Config, error) {
	var c Config
	if p := get(EnvConfig); p != "" {
		var err error
		if c, err = ReadConfig(p); err != nil {
			return c, err
		}
	}
	if v := get(EnvServers); v != "" {
		c.Servers = splitList(v)
	}
	if v := get(EnvModels); v != "" {
		c.Filter.Models = splitList(v)
	}
	if v := get(EnvAPI); v != "" {
		lo, hi, err := ParseAPIRange(v)
		if err != nil {
			return c, fmt.Errorf("devicepool: $%s: %w", EnvAPI, err)
		}
		c.Filter.MinAPI, c.Filter.MaxAPI = lo, hi
	}
	if v := get(EnvSerial); v != "" {
		c.Filter.Serial = v
	}
	if _, err := c.withDefaults(); err != nil {
		return c, fmt.Errorf("%w (from the environment)", err)
	}
	return c, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ParseAPIRange reads "33", "30-34", "30-" or "-33" as API bounds (0: no
// bound).
func ParseAPIRange(v string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(strings.TrimSpace(v), "-")
	num := func(s string) (int, error) {
		if s == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 1000 {
			return 0, fmt.Errorf("API range %s: want 33, 30-34, 30- or -33", excerpt.Quote(v))
		}
		return n, nil
	}
	if lo, err = num(a); err != nil {
		return 0, 0, err
	}
	hi = lo
	if isRange {
		if hi, err = num(b); err != nil {
			return 0, 0, err
		}
	}
	if lo == 0 && hi == 0 || hi > 0 && hi < lo {
		return 0, 0, fmt.Errorf("API range %s: want 33, 30-34, 30- or -33", excerpt.Quote(v))
	}
	return lo, hi, nil
}

// fileConfig is a pool config file as written.
type fileConfig struct {
	Servers []string `json:"servers"`
	Filter  Filter   `json:"filter"`
	Wait    string   `json:"wait"`
	Timeout string   `json:"timeout"`
}

// ReadConfig reads a pool config file (see ParseConfig).
func ReadConfig(file string) (Config, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Config{}, fmt.Errorf("devicepool: %w", err)
	}
	return ParseConfig(file, b)
}

// ParseConfig reads a pool config file's bytes; name names it in errors,
// which quote a bounded excerpt of the offending text:
//
//	{
//	  "servers": ["adb-lab-1:5037", "adb-lab-2:5037"],
//	  "filter": {"models": ["Pixel 7", "Pixel 4a"], "min_api": 30, "serial": "*"},
//	  "wait": "15m",
//	  "timeout": "20s"
//	}
func ParseConfig(name string, b []byte) (Config, error) {
	var fc fileConfig
	if err := jsondup.Decode(name, b, &fc); err != nil {
		return Config{}, fmt.Errorf("devicepool: %w", err)
	}
	c := Config{Servers: fc.Servers, Filter: fc.Filter}
	for _, d := range []struct {
		field string
		s     string
		to    *time.Duration
	}{{"wait", fc.Wait, &c.Wait}, {"timeout", fc.Timeout, &c.Timeout}} {
		if d.s == "" {
			continue
		}
		v, err := time.ParseDuration(d.s)
		if err != nil || v <= 0 {
			return Config{}, fmt.Errorf("devicepool: %s: %s %s: want a duration such as \"90s\"", name, d.field, excerpt.Quote(d.s))
		}
		*d.to = v
	}
	if _, err := c.withDefaults(); err != nil {
		return Config{}, fmt.Errorf("%w (in %s)", err, name)
	}
	return c, nil
}
