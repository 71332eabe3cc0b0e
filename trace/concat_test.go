package trace_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// packetsOf splits a trace into its packets.
func packetsOf(t *testing.T, data []byte) [][]byte {
	t.Helper()
	rd := trace.NewReader(bytes.NewReader(data))
	var out [][]byte
	for {
		p, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(p.Data))
	}
}

// traceOf writes packets as a trace.
func traceOf(t *testing.T, packets ...[][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	for _, ps := range packets {
		for _, p := range ps {
			w.Raw(p)
		}
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// comparable is an analysis without what depends on how the file was put
// together: its packets, its notes, the traces it held and what was read
// twice.
func comparableJSON(t *testing.T, a *trace.Analysis) string {
	t.Helper()
	c := *a
	c.Packets, c.Notes, c.Traces, c.ReadAgain = 0, nil, 0, nil
	b, err := json.Marshal(struct {
		A      trace.Analysis
		Frames []trace.Frame
		Janky  []trace.JankyFrame
		Step   *trace.Step
	}{c, c.Frames, c.Janky, c.All()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConcatenatedTraces: a file that holds several traces one after
// another (the protobuf framing allows it: `cat a b`, a ring buffer read
// twice) is analysed as the one trace they hold between them. Every frame,
// scheduler event and slice that two of them hold counts once: frames by
// their identity (process, layer, token, display frame token, start),
// events by where each CPU's and each track's stream had got to. The truth
// is the single trace's analysis, itself checked against the generator's
// timeline (TestAnalyzeMatchesTruth), and that timeline directly.
func TestConcatenatedTraces(t *testing.T) {
	parallel(t)
	data, g := genTrace(t, genOpts{frames: 150, cpus: 4, noiseGap: 40_000, seed: 3, truth: true})
	pk := packetsOf(t, data)
	// The generator writes a clock snapshot, the system info, the
	// processes, the app's track and its interned names, then the
	// workload; each trace cut from it starts with the same five packets.
	head, body := pk[:5], pk[5:]
	third, half := len(body)/3, len(body)/2
	cases := []struct {
		name   string
		data   []byte
		traces int
	}{
		{"twice", traceOf(t, pk, pk), 2},
		{"three times", traceOf(t, pk, pk, pk), 3},
		{"overlapping", traceOf(t, head, body[:2*third], head, body[third:]), 2},
		{"one after the other", traceOf(t, head, body[:half], head, body[half:]), 2},
	}
	for _, pkg := range []string{genPkg, ""} {
		single, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg})
		if err != nil {
			t.Fatal(err)
		}
		if single.Traces != 0 || single.ReadAgain != nil {
			t.Fatalf("one trace: traces %d, read again %v", single.Traces, single.ReadAgain)
		}
		want := comparableJSON(t, single)
		for _, c := range cases {
			a, err := trace.Analyze(bytes.NewReader(c.data), trace.Options{Package: pkg})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got := comparableJSON(t, a); got != want {
				t.Errorf("package %q, %s: the analysis differs from the single trace's:\n%s\nwant\n%s", pkg, c.name, got, want)
			}
			if a.Traces != c.traces || (c.name != "one after the other" && a.ReadAgain["frames"] == 0) {
				t.Errorf("package %q, %s: traces %d (want %d), read again %v", pkg, c.name, a.Traces, c.traces, a.ReadAgain)
			}
			if pkg == "" {
				continue
			}
			// Against the timeline the trace was made from.
			if len(a.Frames) != len(g.truth) || a.DisplayFrames != len(g.truth) {
				t.Fatalf("%s: %d frames and %d display frames, want %d", c.name, len(a.Frames), a.DisplayFrames, len(g.truth))
			}
			janky := map[int64]trace.JankyFrame{}
			for _, jf := range a.Janky {
				janky[jf.Token] = jf
			}
			for i, tf := range g.truth {
				if f := a.Frames[i]; f.Token != tf.token || f.Jank != tf.jank || f.Start != tf.start || f.End != tf.end {
					t.Errorf("%s: frame %d: token %d jank %v [%d,%d], want %d %v [%d,%d]", c.name, i, f.Token, f.Jank, f.Start, f.End, tf.token, tf.jank, tf.start, tf.end)
				}
				if !tf.jank.Janky() {
					continue
				}
				if jf, ok := janky[tf.token]; !ok || jf.MainThread == nil || *jf.MainThread != tf.states || sliceList(jf.Slices) != genSliceList(tf.top) {
					t.Errorf("%s: janky frame %d: %+v, want states %+v and slices\n%s", c.name, tf.token, jf, tf.states, genSliceList(tf.top))
				}
			}
		}
	}
}

// A trace that holds its frames twice without saying that another trace
// began (no packet a trace has once comes again) still counts each frame
// once: a frame is the frame its identity says. Its scheduler events, whose
// times go back, are rejected as before.
func TestConcatenationNeedsAStart(t *testing.T) {
	parallel(t)
	data, _ := genTrace(t, genOpts{frames: 40, cpus: 2, noiseGap: 40_000, seed: 4})
	pk := packetsOf(t, data)
	// Without its system info the second copy does not say it is a new
	// trace.
	a, err := trace.Analyze(bytes.NewReader(traceOf(t, pk, append(pk[:1:1], pk[2:]...))), trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	single, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	if a.Traces != 0 || len(a.Frames) != len(single.Frames) || a.ReadAgain["frames"] < len(single.Frames) || a.Rejected["sched_time_backwards"] == 0 {
		t.Errorf("traces %d, %d frames (want %d), read again %v, rejected %v", a.Traces, len(a.Frames), len(single.Frames), a.ReadAgain, a.Rejected)
	}
}
