package simdevice

import (
	"strings"
	"testing"
)

// A workload's sections are checked as a session's names are, naming the
// field and quoting the value; the frames they pick carry them in the
// truth, nested and on their thread, inside the frame's work.
func TestWorkloadSections(t *testing.T) {
	for _, tc := range []struct {
		s    Section
		want string
	}{
		{Section{Name: ""}, "phases[0].sections[0]: empty section name"},
		{Section{Name: "a", Child: "b>c"}, `phases[0].sections[0]: section name "b>c" holds '<' or '>'`},
		{Section{Name: "a", Thread: "io"}, `phases[0].sections[0].thread: "io" is neither "main" nor "worker"`},
		{Section{Name: "a", Every: -1}, "phases[0].sections[0]: every and at must be >= 0"},
		{Section{Name: "a", Emit: "sdk"}, `phases[0].sections[0].emit: "sdk" is none of "atrace", "track_event", "named_track"`},
	} {
		w, err := Preset("smooth-scroll")
		if err != nil {
			t.Fatal(err)
		}
		w.Phases[0].Sections = []Section{tc.s}
		if err := w.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	f := TruthFrame{Pid: 500, IntendedVsync: 0, HandleInputStart: 1000, PerformTraversalsStart: 3000, DrawStart: 13000, SyncQueued: 20000}
	p := &Phase{Sections: []Section{{Name: "a", Child: "b", Emit: EmitTrackEvent}, {Name: "c", Thread: SectionWorker, Every: 2, Emit: EmitAtrace}, {Name: "d", At: []int{1}, Emit: EmitNamedTrack}}}
	got := frameSections(&f, p, 1)
	// measure is [3000, 7000): a's slot its first half, d's its second;
	// the worker's slot the whole [1000, 20000). A named track's section
	// is on no thread in the trace: not the main thread's.
	want := []TruthSection{
		{Name: "a", TID: 500, Main: true, Depth: 3, StartNs: 3200, EndNs: 4800, Emit: EmitTrackEvent},
		{Name: "b", TID: 500, Main: true, Depth: 4, StartNs: 3600, EndNs: 4400, Emit: EmitTrackEvent},
		{Name: "c", TID: 531, Depth: 0, StartNs: 2900, EndNs: 18100},
		{Name: "d", TID: 500, Depth: 3, StartNs: 5200, EndNs: 6800, Emit: EmitNamedTrack},
	}
	if len(got) != len(want) {
		t.Fatalf("sections %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := len(frameSections(&f, p, 2)); n != 2 {
		t.Errorf("frame 2: %d sections, want a and b", n)
	}
}
