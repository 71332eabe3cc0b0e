package cliflag_test

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/cliflag"
)

// A duration without its unit is refused in words a user can act on, not
// the flag package's "parse error"; a good one, and the default, read as
// fs.Duration reads them.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		args    []string
		want    time.Duration
		wantErr string
	}{
		{nil, 10 * time.Second, ""},
		{[]string{"-duration", "1m30s"}, 90 * time.Second, ""},
		{[]string{"-duration", "10"}, 0, `invalid value "10" for flag -duration: time: missing unit in duration "10": want a duration such as 10s or 1m30s`},
		{[]string{"-duration", "ten"}, 0, `invalid value "ten" for flag -duration: time: invalid duration "ten": want a duration such as 10s or 1m30s`},
	} {
		fs := flag.NewFlagSet("record", flag.ContinueOnError)
		var out bytes.Buffer
		fs.SetOutput(&out)
		d := cliflag.Duration(fs, "duration", 10*time.Second, "how long")
		err := fs.Parse(c.args)
		switch {
		case c.wantErr != "":
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: error %v, want %q", c.args, err, c.wantErr)
			}
		case err != nil || *d != c.want:
			t.Errorf("%q: %v, %v; want %v", c.args, *d, err, c.want)
		}
	}
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	var out bytes.Buffer
	fs.SetOutput(&out)
	cliflag.Duration(fs, "give-up", 10*time.Second, "give up after")
	cliflag.Duration(fs, "duration", 0, "how long")
	fs.PrintDefaults()
	if s := out.String(); !strings.Contains(s, "(default 10s)") || strings.Contains(s, "(default 0s)") {
		t.Errorf("defaults:\n%s", s)
	}
}
