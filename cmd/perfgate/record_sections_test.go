package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// record -trace-section and -trace-main-section name the sections the
// step measures, and turn the trace on without -trace; a bad name is an
// error before anything is measured.
func TestRecordTraceSections(t *testing.T) {
	t.Parallel()
	wl, err := simdevice.Preset("janky-scroll")
	if err != nil {
		t.Fatal(err)
	}
	for i := range wl.Phases {
		wl.Phases[i].Sections = []simdevice.Section{{Name: "feed:bind", Child: "feed:image"}, {Name: "feed:bind", Thread: simdevice.SectionWorker, Every: 2}}
	}
	dev, srv := simtest.Serve(t, simdevice.Config{API: 33, Workload: simtest.QuickStart(wl), RefreshHz: 60})
	simtest.Launch(t, srv.Open(dev.Serial()), dev)
	out := filepath.Join(t.TempDir(), "result.json")
	var stdout, stderr bytes.Buffer
	err = runRecord([]string{"-serial", dev.Serial(), "-package", simdevice.PresetPackage, "-duration", "2s", "-out", out, "-adb", srv.Addr,
		"-trace-section", "feed:bind", "-trace-main-section", "feed:%"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("record: %v\n%s", err, stderr.String())
	}
	r, err := result.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	ss := r.Step("record").Sections
	if r.Trace == nil || len(ss) != 2 || ss[0].Name != "feed:bind" || ss[0].MainThread || ss[1].Name != "feed:%" || !ss[1].MainThread {
		t.Fatalf("trace %+v, sections %+v", r.Trace, ss)
	}
	// Every frame writes feed:bind and feed:image on the main thread, and
	// every second one feed:bind on the worker.
	if ss[0].Count == 0 || ss[1].Count == 0 || ss[0].Count >= ss[1].Count || ss[0].NotMeasured != "" {
		t.Errorf("sections %+v", ss)
	}
	for _, bad := range []string{"", "a<b", " x"} {
		err := runRecord([]string{"-package", simdevice.PresetPackage, "-adb", "127.0.0.1:1", "-trace-section", bad}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), "record: -trace: sections: ") {
			t.Errorf("-trace-section %q: %v", bad, err)
		}
	}
}
