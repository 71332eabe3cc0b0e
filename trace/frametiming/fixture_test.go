package frametiming_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
)

const nowInAndroid = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"

// refFigures is what testdata/frametiming_ref.py prints.
type refFigures struct {
	Frames    int        `json:"frames"`
	CPU       *[]float64 `json:"cpu"`
	Overrun   *[]float64 `json:"overrun"`
	CPUAbsent bool       `json:"cpu_absent"`
}

// On the real Android 13 trace (FrameTimeline and the app's atrace
// sections, but no Choreographer#doFrame or DrawFrame slice: the view and
// gfx categories were off) no frame counts by Macrobenchmark's rule: the
// CPU figures are absent, saying why, and the overrun is taken over
// FrameTimeline's frames. All eight figures agree with an independent
// decoding of the same bytes (testdata/frametiming_ref.py).
func TestNowInAndroidAgainstReference(t *testing.T) {
	path := fixtures.Path(t, nowInAndroid)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the reference script testdata/frametiming_ref.py")
	}
	const pkg = "com.google.samples.apps.nowinandroid.demo"
	out, err := exec.Command("python3", "testdata/frametiming_ref.py", pkg, path).Output()
	if err != nil {
		t.Fatalf("testdata/frametiming_ref.py: %v", err)
	}
	var ref refFigures
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("testdata/frametiming_ref.py printed %q: %v", out, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, tm := analyze(t, data, trace.Options{Package: pkg})
	st := tm.Window(a.Start, a.End+1)
	t.Logf("frames %d, overrun %+v (%s), cpu %+v (%s); reference %s", st.Frames, st.Overrun, st.OverrunDefinition, st.CPU, st.NotMeasured[frametiming.CPU], out)
	if !ref.CPUAbsent || ref.CPU != nil || st.CPU != nil || !strings.Contains(st.NotMeasured[frametiming.CPU], "Choreographer#doFrame") {
		t.Errorf("cpu: %+v (%q), reference absent=%v", st.CPU, st.NotMeasured[frametiming.CPU], ref.CPUAbsent)
	}
	if st.OverrunDefinition != frametiming.TimelineDefinition {
		t.Errorf("overrun definition %q", st.OverrunDefinition)
	}
	if st.Frames != ref.Frames || ref.Overrun == nil || st.Overrun == nil {
		t.Fatalf("frames %d, overrun %+v; reference %d, %v", st.Frames, st.Overrun, ref.Frames, ref.Overrun)
	}
	want := *ref.Overrun
	checkPercentiles(t, "overrun", st.Overrun, [4]float64{want[0], want[1], want[2], want[3]})
}
