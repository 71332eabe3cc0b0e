package trace_test

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/trace"
)

// With Options.MainThreads the app's main thread is kept whole: on the real
// Android 13 trace, MainThread gives every slice the independent walk
// rebuilds from the thread's B/E markers, not only those of janky frames;
// without it, only those.
func TestMainThreadWhole(t *testing.T) {
	parallel(t)
	data, err := os.ReadFile(fixtures.Path(t, nowInAndroid))
	if err != nil {
		t.Fatal(err)
	}
	want := walkNowInAndroid(t, data).slicesOf(9305)
	const pkg = "com.google.samples.apps.nowinandroid.demo"
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg, MainThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	_, got := a.MainThread(9305, a.Start, a.End)
	if len(got) != len(want) || len(want) < 1000 || fmt.Sprint(got) != fmt.Sprint(sortedByStart(want)) {
		t.Errorf("main thread: %d slices, the walk rebuilds %d", len(got), len(want))
	}
	part, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	if _, sl := part.MainThread(9305, part.Start, part.End); len(sl) >= len(want) {
		t.Errorf("without MainThreads the thread keeps %d slices of %d", len(sl), len(want))
	}
}

// sortedByStart is s by start, slices of one start in the order they ended.
func sortedByStart(s []trace.Slice) []trace.Slice {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(x, y trace.Slice) int { return cmp.Compare(x.Start, y.Start) })
	return out
}
