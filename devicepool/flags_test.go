package devicepool

import (
	"errors"
	"flag"
	"io"
	"slices"
	"sync/atomic"
	"testing"
)

// A flag given wins over its variable; a variable stands in for a flag not
// given.
func TestRegisterFlags(t *testing.T) {
	t.Setenv(EnvServers, "127.0.0.1:5037")
	t.Setenv(EnvModels, "Pixel 4a")
	t.Setenv(EnvAPI, "")
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := RegisterFlags(fs, "with -pool: ")
	if err := fs.Parse([]string{"-models", "Pixel 7,Pixel 8", "-api", "30-34"}); err != nil {
		t.Fatal(err)
	}
	c, err := cfg()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Servers, []string{"127.0.0.1:5037"}) || !slices.Equal(c.Filter.Models, []string{"Pixel 7", "Pixel 8"}) || c.Filter.MinAPI != 30 || c.Filter.MaxAPI != 34 {
		t.Errorf("config %+v: want the variable's server, the flags' models and API range", c)
	}
	if err := fs.Parse([]string{"-api", "thirty"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cfg(); err == nil {
		t.Error("-api thirty was accepted")
	}
}

// Fan runs every member, never more than parallel at once (the first
// three hold their slots until three have started), and keeps each one's
// error in the members' order.
func TestFan(t *testing.T) {
	members := make([]*Member, 7)
	for i := range members {
		members[i] = &Member{}
	}
	var now, most atomic.Int32
	started := make(chan struct{}, len(members))
	release := make(chan struct{})
	go func() {
		for range 3 {
			<-started
		}
		close(release)
	}()
	errs := Fan(members, 3, func(i int, m *Member) error {
		n := now.Add(1)
		for {
			if old := most.Load(); n <= old || most.CompareAndSwap(old, n) {
				break
			}
		}
		started <- struct{}{}
		<-release
		now.Add(-1)
		if i%2 == 1 {
			return errors.New("odd")
		}
		return nil
	})
	if most.Load() > 3 {
		t.Errorf("%d ran at once, want at most 3", most.Load())
	}
	for i, err := range errs {
		if (err != nil) != (i%2 == 1) {
			t.Errorf("member %d: error %v", i, err)
		}
	}
}
