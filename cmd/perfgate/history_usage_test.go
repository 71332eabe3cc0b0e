package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/clihelp"
)

// perfgate history called wrongly (an unknown command, a bad argument or
// value, a missing one) says what was wrong, then which usage to read:
// two lines, never the usage of thirty before the error.
func TestHistoryWrongCallIsTwoLines(t *testing.T) {
	for _, c := range []struct {
		args       []string
		want, hint string
	}{
		{nil, "perfgate: history: no command given (want add, budget, digest, html, trend)", "history"},
		{[]string{"frob"}, `perfgate: history: unknown command "frob"`, "history"},
		{[]string{"trend", "extra"}, `perfgate: history trend: unexpected argument "extra"`, "history trend"},
		{[]string{"trend", "-alpha", "2"}, "perfgate: history trend: -alpha 2 is not in (0, 1)", "history trend"},
		{[]string{"trend", "-from", "yesterday"}, `perfgate: history trend: -from: `, "history trend"},
		{[]string{"digest", "-min-runs", "1"}, "perfgate: history digest: -min-runs 1: want at least 2", "history digest"},
		{[]string{"add"}, "perfgate: history add: no result file given", "history add"},
		{[]string{"add", "-report-base", "ftp://x", "r.json"}, `perfgate: history add: -report-base "ftp://x": want an http(s) URL or a relative path`, "history add"},
		{[]string{"html"}, "perfgate: history html: no -o folder given", "history html"},
		{[]string{"budget"}, "perfgate: history budget: no -test given (a budget file serves one test)", "history budget"},
		{[]string{"budget", "-test", "T", "-last", "0"}, "perfgate: history budget: -last 0 and -headroom 10 must be positive", "history budget"},
	} {
		var stderr bytes.Buffer
		code := clihelp.Exit(run(append([]string{"history"}, c.args...), io.Discard, &stderr), &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], c.want) || lines[1] != "run 'perfgate "+c.hint+" -h' for usage" {
			t.Errorf("perfgate history %s: exit %d, %d lines:\n%s\nwant exit 1, %q and run 'perfgate %s -h' for usage", strings.Join(c.args, " "), code, len(lines), stderr.String(), c.want, c.hint)
		}
	}
	// -h still prints the command's whole usage, and is no error.
	var stderr bytes.Buffer
	if code := clihelp.Exit(run([]string{"history", "budget", "-h"}, io.Discard, &stderr), &stderr); code != 0 || !strings.HasPrefix(stderr.String(), "usage: perfgate history budget") || !strings.Contains(stderr.String(), "-headroom") {
		t.Errorf("history budget -h: exit %d\n%s", code, stderr.String())
	}
}
