// Package cliflag holds flag values of perfgate's commands whose errors
// say what was wrong, where the flag package says only "parse error".
package cliflag

import (
	"flag"
	"fmt"
	"time"
)

// Duration defines a duration flag on fs, as fs.Duration does, whose bad
// value is refused in time.ParseDuration's words, with an example:
// `invalid value "10" for flag -duration: time: missing unit in duration
// "10": want a duration such as 10s or 1m30s`.
func Duration(fs *flag.FlagSet, name string, value time.Duration, usage string) *time.Duration {
	d := value
	fs.Var((*duration)(&d), name, usage)
	return &d
}

type duration time.Duration

func (d *duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%w: want a duration such as 10s or 1m30s", err)
	}
	*d = duration(v)
	return nil
}

func (d *duration) String() string { return time.Duration(*d).String() }
