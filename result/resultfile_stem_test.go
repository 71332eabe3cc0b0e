package result

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Sessions of one name writing into one folder at once, their files
// claimed in any interleaving (here the first session's trace, the
// second's trace, stacks and Result, then the first's stacks and Result),
// each get one stem: a Result's links are always its own files. A Result
// written on its own meanwhile (a report's copy, another process) takes
// neither stem, though only one of its files is there yet.
func TestResultFilesStemInterleaved(t *testing.T) {
	dir := t.TempDir()
	a, b := &Stem{}, &Stem{}
	aTrace := mustClaim(t, a, dir, ".perfetto-trace", "\x0a\x02\x08\x01")
	lone := &Result{Name: "lone"}
	if err := lone.WriteInDir(dir, runBase); err != nil {
		t.Fatal(err)
	}
	bTrace := mustClaim(t, b, dir, ".perfetto-trace", "\x0a\x02\x08\x02")
	bStacks := mustClaim(t, b, dir, ".folded", "b;main 1\n")
	bResult := &Result{Name: "b", Causes: &CauseRun{StacksFile: filepath.Base(bStacks)}, Trace: &TraceInfo{File: bTrace}}
	if err := bResult.WriteInStem(dir, runBase, b); err != nil {
		t.Fatal(err)
	}
	aStacks := mustClaim(t, a, dir, ".folded", "a;main 1\n")
	aResult := &Result{Name: "a", Causes: &CauseRun{StacksFile: filepath.Base(aStacks)}, Trace: &TraceInfo{File: aTrace}}
	if err := aResult.WriteInStem(dir, runBase, a); err != nil {
		t.Fatal(err)
	}
	// A Result written again (a session's checkpoints, its final write)
	// keeps its stem.
	if err := aResult.WriteInStem(dir, runBase, a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r     *Result
		stem  string
		files []string
	}{
		{aResult, runBase, []string{aTrace, aStacks}},
		{lone, runBase + ".2", nil},
		{bResult, runBase + ".3", []string{bTrace, bStacks}},
	} {
		if want := filepath.Join(dir, tc.stem+".json"); tc.r.Path != want {
			t.Errorf("Result %s written to %s, want %s", tc.r.Name, tc.r.Path, want)
		}
		for _, f := range tc.files {
			if got := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".folded"), ".perfetto-trace"); got != tc.stem {
				t.Errorf("Result %s (%s) links %s", tc.r.Name, filepath.Base(tc.r.Path), filepath.Base(f))
			}
		}
	}
	want := []string{runBase + ".2.json", runBase + ".3.folded", runBase + ".3.json", runBase + ".3.perfetto-trace",
		runBase + ".folded", runBase + ".json", runBase + ".perfetto-trace"}
	if got := dirFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("the folder holds %q, want %q", got, want)
	}
}

// mustClaim writes s under st with extension ext in dir.
func mustClaim(t *testing.T, st *Stem, dir, ext, s string) string {
	t.Helper()
	p, err := st.claimString(dir, runBase, ext, s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
