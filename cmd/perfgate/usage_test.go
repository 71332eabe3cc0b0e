package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/clihelp"
)

// A command called wrongly, with a bad flag or the wrong arguments, says
// what was wrong on its first line and then where the usage is: two
// lines, not the fifty of the usage before the error.
func TestWrongCallIsTwoLines(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the first line
	}{
		{[]string{"run", "-nope", "s.json"}, "perfgate: run: flag provided but not defined: -nope"},
		{[]string{"run"}, "perfgate: run: want one scenario file, got 0 arguments"},
		{[]string{"run", "-headroom", "x", "s.json"}, `perfgate: run: invalid value "x" for flag -headroom: parse error`},
		{[]string{"report", "-nope", "r.json"}, "perfgate: report: flag provided but not defined: -nope"},
		{[]string{"report"}, "perfgate: report: no result file given"},
		{[]string{"compare", "a.json"}, "perfgate: compare: want a baseline and new runs, got 1 arguments"},
		{[]string{"compare", "a.json", "b.json", "-alpah", "0.1"}, "perfgate: compare: flag provided but not defined: -alpah"},
		{[]string{"record", "-serial", "x"}, "perfgate: record: -package is required"},
		{[]string{"record", "-package", "com.example", "-duration", "10"}, `perfgate: record: invalid value "10" for flag -duration: time: missing unit in duration "10": want a duration such as 10s or 1m30s`},
		{[]string{"analyze", "trace"}, "perfgate: analyze trace: give exactly one trace file"},
		{[]string{"analyze", "frames", "-nope", "f.txt"}, "perfgate: analyze frames: flag provided but not defined: -nope"},
		{[]string{"layer", "-nope"}, "perfgate: layer: flag provided but not defined: -nope"},
		{[]string{"simdevice", "extra"}, `perfgate: simdevice: unexpected arguments ["extra"]`},
		{[]string{"nope"}, `perfgate: unknown command "nope"`},
	} {
		var stderr bytes.Buffer
		code := clihelp.Exit(run(c.args, io.Discard, &stderr), &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != 1 || len(lines) != 2 || lines[0] != c.want || !strings.HasPrefix(lines[1], "run 'perfgate ") || !strings.HasSuffix(lines[1], " for usage") {
			t.Errorf("perfgate %s: exit %d, %d lines:\n%s\nwant exit 1, %q and where the usage is", strings.Join(c.args, " "), code, len(lines), stderr.String(), c.want)
		}
	}
	// -h still prints the whole usage, and is no error.
	var stderr bytes.Buffer
	if code := clihelp.Exit(run([]string{"run", "-h"}, io.Discard, &stderr), &stderr); code != 0 || !strings.HasPrefix(stderr.String(), "usage: perfgate run") || !strings.Contains(stderr.String(), "-headroom") {
		t.Errorf("run -h: exit %d\n%s", code, stderr.String())
	}
}
