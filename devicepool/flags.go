package devicepool

import (
	"flag"
	"os"
	"sync"
)

// RegisterFlags adds to fs a flag for each variable FromEnv reads:
// -pool-config, -servers, -models, -api and -serials, each described as
// usage says ("with -pool: "), and returns the Config they and the
// environment give once fs is parsed: a flag given wins over its variable.
func RegisterFlags(fs *flag.FlagSet, usage string) func() (Config, error) {
	vals := map[string]*string{
		EnvConfig:  fs.String("pool-config", "", usage+"the pool's config `file` (default $"+EnvConfig+")"),
		EnvServers: fs.String("servers", "", usage+"adb servers, `host:port,...` (default $"+EnvServers+")"),
		EnvModels:  fs.String("models", "", usage+"only these device `models`, comma-separated (default $"+EnvModels+")"),
		EnvAPI:     fs.String("api", "", usage+"only API levels in `range` such as 30-34 (default $"+EnvAPI+")"),
		EnvSerial:  fs.String("serials", "", usage+"only serials matching `pattern` (default $"+EnvSerial+")"),
	}
	return func() (Config, error) {
		return FromVars(func(name string) string {
			if v := vals[name]; v != nil && *v != "" {
				return *v
			}
			return os.Getenv(name)
		})
	}
}

// Fan runs fn on each of members, at most parallel at once, and returns
// fn's errors in the order of members (nil where it succeeded). i is the
// member's index in members.
func Fan(members []*Member, parallel int, fn func(i int, m *Member) error) []error {
	errs := make([]error, len(members))
	slots := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[i] = fn(i, m)
		})
	}
	wg.Wait()
	return errs
}
