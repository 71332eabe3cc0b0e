package simdevice

import (
	"strings"
	"testing"
)

// TestQuirksFailingCommands: a command line of FailingCommands fails with
// its status and stderr without running; the program's other command
// lines run as before; a bad entry fails New.
func TestQuirksFailingCommands(t *testing.T) {
	const stderr = "simpleperf E record_file_reader.cpp:120] perf.data is not a valid perf.data file\n"
	d := newTestDevice(t, Config{Quirks: Quirks{FailingCommands: []FailingCommand{{Command: "simpleperf report-sample", Exit: 2, Stderr: stderr}}}})
	if out, errOut, code := run(t, d, "simpleperf report-sample --show-callchain -i /data/local/tmp/x.data", ""); code != 2 || out != "" || errOut != stderr {
		t.Errorf("report-sample: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, errOut, stderr)
	}
	if _, errOut, code := run(t, d, "simpleperf record --app nope -o /data/local/tmp/x.data", ""); code != 1 || !strings.Contains(errOut, "doesn't exist or isn't debuggable/profileable") {
		t.Errorf("record ran as the quirk's: exit %d, stderr %q", code, errOut)
	}
	for _, f := range []FailingCommand{{Command: " ", Exit: 1}, {Command: "am profile stop", Exit: 0}, {Command: "am", Exit: 256}} {
		if _, err := New(Config{Quirks: Quirks{FailingCommands: []FailingCommand{f}}}); err == nil {
			t.Errorf("New with FailingCommands %+v: no error", f)
		}
	}
}
