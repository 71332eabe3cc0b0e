package devicepool_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/simdevice"
)

func TestParseConfig(t *testing.T) {
	c, err := devicepool.ParseConfig("pool.json", []byte(`{
  "servers": ["lab-1:5037", "tcp:lab-2:5038", "tcp:5039"],
  "filter": {"models": ["Pixel 7"], "min_api": 30, "max_api": 34, "serial": "emulator-*"},
  "wait": "15m",
  "timeout": "20s"
}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Servers, ",") != "lab-1:5037,tcp:lab-2:5038,tcp:5039" || c.Filter.Models[0] != "Pixel 7" ||
		c.Filter.MinAPI != 30 || c.Filter.MaxAPI != 34 || c.Wait != 15*time.Minute || c.Timeout != 20*time.Second {
		t.Errorf("config %+v", c)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"servers": ["lab-1:99999"]}`, `adb server "lab-1:99999"`},
		{`{"servers": ["a:1"], "servers": ["b:2"]}`, `duplicate key "servers"`},
		{`{"filter": {"serial": "["}}`, `serial pattern "["`},
		{`{"filter": {"min_api": 34, "max_api": 30}}`, `API range 34..30`},
		{`{"wait": "soon"}`, `wait "soon"`},
		{`{"hosts": []}`, `unknown field "hosts"`},
		{`{"servers": [1]}`, `pool.json`},
		{`{} {}`, `text after`},
	} {
		_, err := devicepool.ParseConfig("pool.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "pool.json") {
			t.Errorf("%s: error %v, want one naming pool.json and %s", tc.in, err, tc.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(devicepool.EnvConfig, "")
	t.Setenv(devicepool.EnvServers, "lab-1:5037, lab-2:5037")
	t.Setenv(devicepool.EnvModels, "Pixel 7,Pixel 4a")
	t.Setenv(devicepool.EnvAPI, "30-")
	t.Setenv(devicepool.EnvSerial, "sim-*")
	c, err := devicepool.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Servers) != 2 || c.Servers[1] != "lab-2:5037" || len(c.Filter.Models) != 2 || c.Filter.MinAPI != 30 || c.Filter.MaxAPI != 0 || c.Filter.Serial != "sim-*" {
		t.Errorf("config %+v", c)
	}
	t.Setenv(devicepool.EnvAPI, "thirty")
	if _, err := devicepool.FromEnv(); err == nil || !strings.Contains(err.Error(), `PERFGATE_DEVICE_API: API range "thirty"`) {
		t.Errorf("bad API range: %v", err)
	}
}

func TestParseAPIRange(t *testing.T) {
	for in, want := range map[string][2]int{"33": {33, 33}, "30-34": {30, 34}, "30-": {30, 0}, "-33": {0, 33}} {
		lo, hi, err := devicepool.ParseAPIRange(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("%q: %d..%d %v, want %v", in, lo, hi, err, want)
		}
	}
	for _, in := range []string{"", "-", "34-30", "x", "0"} {
		if _, _, err := devicepool.ParseAPIRange(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestServerAddr(t *testing.T) {
	for in, want := range map[string]string{"": "127.0.0.1:5037", "lab:5038": "lab:5038", "tcp:lab:5039": "lab:5039", "tcp:5040": "127.0.0.1:5040", "5041": "127.0.0.1:5041", "tcp:[::1]:5042": "[::1]:5042"} {
		if got, err := devicepool.ServerAddr(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"lab", "lab:0", ":5037", "a b:5037"} {
		if _, err := devicepool.ServerAddr(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestShardsCoverEveryTestOnce: n jobs of a suite, each given its shard,
// run every test exactly once; subtests stay with their test.
func TestShardsCoverEveryTestOnce(t *testing.T) {
	names := []string{"TestScroll", "TestLaunch", "TestFeed", "TestSearch", "TestLogin", "TestVideo", "TestChat", "TestMap"}
	const n = 3
	sizes := make([]int, n+1)
	for _, name := range names {
		k := devicepool.ShardOf(name, n)
		if k < 1 || k > n || devicepool.ShardOf(name+"/Pixel_7/api33", n) != k {
			t.Errorf("%s: shard %d", name, k)
		}
		sizes[k]++
	}
	if sizes[1]+sizes[2]+sizes[3] != len(names) {
		t.Errorf("shard sizes %v", sizes[1:])
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0"} {
		if _, _, err := devicepool.ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if k, n, err := devicepool.ParseShard(""); k != 1 || n != 1 || err != nil {
		t.Errorf("no shard: %d/%d %v", k, n, err)
	}
}

// twoPhones serves two simulated phones of different models from one
// pure-Go server.
func twoPhones(t *testing.T) *adbtest.Server {
	t.Helper()
	var devs []adbtest.Device
	for _, c := range []simdevice.Config{{Serial: "sim-a", API: 33}, {Serial: "sim-b", API: 30}} {
		d, err := simdevice.New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		devs = append(devs, d)
	}
	srv := adbtest.NewServer(devs...)
	t.Cleanup(srv.Close)
	return srv
}

func TestFilters(t *testing.T) {
	srv := twoPhones(t)
	ctx := context.Background()
	for _, tc := range []struct {
		f    devicepool.Filter
		want string
	}{
		{devicepool.Filter{}, "sim-a,sim-b"},
		{devicepool.Filter{Models: []string{"google pixel 7"}}, "sim-a"},
		{devicepool.Filter{Models: []string{"Pixel 4a"}}, "sim-b"},
		{devicepool.Filter{MinAPI: 31}, "sim-a"},
		{devicepool.Filter{Serial: "*-b"}, "sim-b"},
	} {
		p, err := devicepool.New(ctx, devicepool.Config{Servers: []string{srv.Addr}, Filter: tc.f})
		if err != nil {
			t.Errorf("%+v: %v", tc.f, err)
			continue
		}
		var got []string
		for _, m := range p.Members() {
			got = append(got, m.Serial())
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%+v: %v, want %s", tc.f, got, tc.want)
		}
	}
	_, err := devicepool.New(ctx, devicepool.Config{Servers: []string{srv.Addr}, Filter: devicepool.Filter{Models: []string{"Galaxy S24"}}})
	if !errors.Is(err, devicepool.ErrPoolEmpty) || !strings.Contains(err.Error(), `model "Google Pixel 7" is not one of ["Galaxy S24"]`) {
		t.Errorf("no device matching: %v", err)
	}
}

// TestLeaseWaitsBounded: a lease waits for a busy device and gets it when
// its holder gives it back; with every device busy for longer than
// Config.Wait it fails, naming who holds them.
func TestLeaseWaitsBounded(t *testing.T) {
	srv := twoPhones(t)
	ctx := context.Background()
	p, err := devicepool.New(ctx, devicepool.Config{Servers: []string{srv.Addr}, Filter: devicepool.Filter{Serial: "sim-a"}, Wait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Acquire(ctx, "TestFirst", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Acquire(ctx, "TestSecond", nil)
	if !errors.Is(err, devicepool.ErrNoFreeDevice) || !strings.Contains(err.Error(), "sim-a held by TestFirst") {
		t.Errorf("all busy: %v", err)
	}
	got := make(chan *devicepool.Member)
	p2, err := devicepool.New(ctx, devicepool.Config{Servers: []string{srv.Addr}, Filter: devicepool.Filter{Serial: "sim-b"}})
	if err != nil {
		t.Fatal(err)
	}
	held, err := p2.Acquire(ctx, "TestFirst", nil)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	go func() {
		close(waiting)
		m, err := p2.Acquire(ctx, "TestSecond", nil)
		if err != nil {
			t.Error(err)
		}
		got <- m
	}()
	<-waiting
	if err := p2.Release(held); err != nil {
		t.Fatal(err)
	}
	if m2 := <-got; m2 != held {
		t.Errorf("the waiting lease got %v, want %v", m2, held)
	}
	if err := p.Release(m); err != nil {
		t.Fatal(err)
	}
}

// shardT records what Shard does to a test of a given name.
type shardT struct {
	name           string
	skipped, fatal string
}

func (s *shardT) Helper()      {}
func (s *shardT) Name() string { return s.name }
func (s *shardT) Skipf(format string, args ...any) {
	s.skipped = fmt.Sprintf(format, args...)
}
func (s *shardT) Fatalf(format string, args ...any) {
	s.fatal = fmt.Sprintf(format, args...)
}

// Shard runs a test in its own shard only, every test without the
// variable, and fails a test on a malformed value.
func TestShard(t *testing.T) {
	const name = "TestScroll"
	k := devicepool.ShardOf(name, 3)
	for i := 1; i <= 3; i++ {
		t.Setenv(devicepool.EnvShard, fmt.Sprintf("%d/3", i))
		st := &shardT{name: name}
		devicepool.Shard(st)
		if ran := st.skipped == ""; ran != (i == k) || st.fatal != "" {
			t.Errorf("shard %d/3 of a test in shard %d: ran %v, skip %q, fatal %q", i, k, ran, st.skipped, st.fatal)
		}
	}
	t.Setenv(devicepool.EnvShard, "")
	st := &shardT{name: name}
	devicepool.Shard(st)
	if st.skipped != "" || st.fatal != "" {
		t.Errorf("no shard given: skip %q, fatal %q", st.skipped, st.fatal)
	}
	t.Setenv(devicepool.EnvShard, "4/3")
	st = &shardT{name: name}
	devicepool.Shard(st)
	if !strings.Contains(st.fatal, devicepool.EnvShard) || !strings.Contains(st.fatal, "4/3") {
		t.Errorf("shard 4/3: fatal %q, want one naming the variable and its value", st.fatal)
	}
}

// A pool given no server uses the one adb itself would: $ADB_SERVER_SOCKET,
// else $ANDROID_ADB_SERVER_ADDRESS and $ANDROID_ADB_SERVER_PORT.
func TestDefaultServerFromEnv(t *testing.T) {
	srv := twoPhones(t)
	host, port, err := net.SplitHostPort(srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, env := range []map[string]string{
		{"ADB_SERVER_SOCKET": "", "ANDROID_ADB_SERVER_ADDRESS": host, "ANDROID_ADB_SERVER_PORT": port},
		{"ADB_SERVER_SOCKET": "tcp:" + srv.Addr, "ANDROID_ADB_SERVER_ADDRESS": "", "ANDROID_ADB_SERVER_PORT": "1"},
	} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		p, err := devicepool.New(ctx, devicepool.Config{})
		if err != nil {
			t.Errorf("%v: %v", env, err)
			continue
		}
		if n := len(p.Members()); n != 2 {
			t.Errorf("%v: %d devices, want the server's 2", env, n)
		}
	}
	t.Setenv("ADB_SERVER_SOCKET", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", "port")
	if _, err := devicepool.New(ctx, devicepool.Config{}); err == nil || !strings.Contains(err.Error(), `ANDROID_ADB_SERVER_PORT="port"`) {
		t.Errorf("a bad port: %v", err)
	}
}
