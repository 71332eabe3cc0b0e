package perftest_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// stacksFailCase is a phone whose profiler fails one way.
type stacksFailCase struct {
	name string
	q    simdevice.Quirks
	// want are what the step's not_measured.stacks must quote: the
	// command, its exit status and its stderr.
	want []string
	// note: the failure costs no stacks, and a note of the Result
	// quotes it instead.
	note bool
}

var stacksFailCases = []stacksFailCase{
	{name: "no pkill", q: simdevice.Quirks{MissingCommands: []string{"pkill"}},
		want: []string{"simpleperf recorder could not be stopped", "pkill -INT -f", "exit status 127", "pkill: inaccessible or not found"}},
	{name: "report fails", q: simdevice.Quirks{FailingCommands: []simdevice.FailingCommand{{Command: "simpleperf report-sample", Exit: 1,
		Stderr: "simpleperf E record_file_reader.cpp:120] perf.data is not a valid perf.data file\n"}}},
		want: []string{"simpleperf report-sample --show-callchain -i /data/local/tmp/perfgate-", "exit status 1", "is not a valid perf.data file"}},
	{name: "record refused", q: simdevice.Quirks{FailingCommands: []simdevice.FailingCommand{{Command: "simpleperf record", Exit: 255,
		Stderr: "simpleperf E cmd_record.cpp:656] perf_event_open failed: Operation not permitted\n"}}},
		want: []string{"simpleperf record --app", "exit status 255", "perf_event_open failed: Operation not permitted"}},
	{name: "am profile stop fails", q: simdevice.Quirks{MissingCommands: []string{"simpleperf"}, FailingCommands: []simdevice.FailingCommand{{Command: "am profile stop", Exit: 255,
		Stderr: "Exception occurred while executing 'profile':\njava.lang.IllegalStateException: Profiler not running\n"}}},
		want: []string{"am profile stop", "exit status 255", "Profiler not running"}},
	{name: "leftover listing fails", q: simdevice.Quirks{FailingCommands: []simdevice.FailingCommand{{Command: "ps -A -o PID,ARGS", Exit: 1,
		Stderr: "ps: bad -o PID,ARGS\n"}}}, note: true,
		want: []string{"stacks: leftover: the profiler files of earlier sessions were not looked for: ps -A -o PID,ARGS: exit status 1: ps: bad -o PID,ARGS"}},
}

// Every way the profiler fails on a phone, the step's not_measured.stacks
// says so, quoting the command that failed, its exit status and its
// stderr; the other sources of causes are still measured. A failed read
// that costs no stacks is a note of the Result, quoted the same way.
func TestStacksFailureQuoted(t *testing.T) {
	t.Parallel()
	for _, tc := range stacksFailCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) { stacksFailure(t, tc) })
		})
	}
}

func stacksFailure(t *testing.T, tc stacksFailCase) {
	dev, d := causeDevice(t, 33, 60, tc.q, nil)
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
	launchCold(t, s, d, dev)
	s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"bind": 4, "decode": 1}) })
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session failed: %s", r.Error)
	}
	c := r.Step("scroll").Causes
	if c == nil || len(c.Blocks) == 0 || c.NotMeasured[causes.SourceBlocks] != "" {
		t.Fatalf("blocks not measured: %+v", c)
	}
	why := c.NotMeasured[causes.SourceStacks]
	if tc.note {
		if why != "" || len(c.TopStacks) == 0 {
			t.Errorf("stacks not measured (%q) or none (%d top stacks)", why, len(c.TopStacks))
		}
		why = strings.Join(r.Notes, "\n")
	}
	for _, w := range tc.want {
		if !strings.Contains(why, w) {
			t.Errorf("not_measured.stacks %q does not quote %q (notes %q)", why, w, r.Notes)
		}
	}
	t.Logf("not_measured.stacks: %s", why)
	if !tc.note && len(c.TopStacks) != 0 {
		t.Errorf("top stacks %+v without samples", c.TopStacks)
	}
}
