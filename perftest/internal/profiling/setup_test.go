package profiling

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx"
)

// A setup whose round trip failed says so, quoting the error; the
// profiler still tries simpleperf.
func TestSetupReadFailed(t *testing.T) {
	for _, tc := range []struct {
		out  []adbx.Result
		err  error
		want string
	}{
		{nil, errors.New(`adbx batch sim (4 commands, first "command -v simpleperf"): timeout`), `command -v simpleperf: adbx batch sim (4 commands, first "command -v simpleperf"): timeout`},
		{[]adbx.Result{{}}, nil, "batch of 4 commands returned 1 results"},
	} {
		var notes []string
		p := New(nil, nil, "com.x.y", 0)
		src := p.Setup(context.Background(), tc.out, tc.err, func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) })
		if src != sourceSimpleperf || len(notes) != 1 || !strings.Contains(notes[0], tc.want) || !strings.Contains(notes[0], "not looked for") {
			t.Errorf("source %q, notes %q; want simpleperf and one note quoting %q", src, notes, tc.want)
		}
	}
}
