package clihelp

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A group called with no command says so in one line naming its
// commands, then where the usage is: two lines, never the group's usage
// before the error. help prints the usage, and is no error.
func TestSubcommandsNone(t *testing.T) {
	noop := func([]string, io.Writer, io.Writer) error { return nil }
	g := Subcommands{What: "history", Usage: "usage: perfgate history <command>\n\ncommands:\n  add\n  trend\n", None: "no command given",
		Unknown: "unknown command %q", Cmds: map[string]Command{"trend": noop, "add": noop}}
	var stdout, stderr bytes.Buffer
	code := Exit(g.Run(nil, &stdout, &stderr), &stderr)
	want := "perfgate: history: no command given (want add, trend)\nrun 'perfgate history -h' for usage\n"
	if code != 1 || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("no command: exit %d, stderr:\n%s\nstdout:\n%s\nwant exit 1 and\n%s", code, stderr.String(), stdout.String(), want)
	}
	stdout.Reset()
	stderr.Reset()
	if code := Exit(g.Run([]string{"-h"}, &stdout, &stderr), &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "usage: perfgate history") {
		t.Errorf("-h: exit %d, stdout %q", code, stdout.String())
	}
}
