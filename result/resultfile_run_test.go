package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/filelock"
)

// runBase is the base of the Results the tests of a run's files write.
const runBase = "TestRun@result"

// Five runs in a row, each a process of its own and each within moments
// of the one before, leave one set of files: base.json with its folded
// stacks, trace and reports, each time the last run's, and never a
// base.2.json.
func TestResultFilesFiveRuns(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		name := fmt.Sprintf("run %d", i)
		out, err := runChild(dir, name, false).Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := strings.Split(firstLine(out), "\t")
		want := []string{runBase + ".json", runBase + ".perfetto-trace", runBase + ".folded", runBase + ".html", runBase + ".md"}
		for j := range got {
			got[j] = filepath.Base(got[j])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s wrote %q, want %q", name, got, want)
		}
		if files := dirFiles(t, dir); !slices.Equal(files, slices.Sorted(slices.Values(want))) {
			t.Errorf("after %s the folder holds %q", name, files)
		}
		if r, err := ReadResult(filepath.Join(dir, runBase+".json")); err != nil || r.Name != name {
			t.Errorf("after %s: %v %+v", name, err, r)
		}
	}
}

// An earlier run's Results, base.json and base.2.json, go when a new run
// writes base.json, each with the folded stacks and trace it names and its
// reports; files of other tests, reports that are not perfgate's, names
// that are not base's and files a Result does not name stay.
func TestResultFilesEarlierRunRemoved(t *testing.T) {
	dir := t.TempDir()
	gone := earlierRun(t, dir, runBase, "", "")
	gone = append(gone, earlierRun(t, dir, runBase+".2", ".2", ".3")...)
	// A Result whose reports are someone's notes: the Result goes, the
	// notes stay.
	gone = append(gone, writeFile(t, dir, runBase+".3.json", resultJSON(t, "earlier 3", "", "")))
	kept := []string{
		writeFile(t, dir, runBase+".3.html", "<!doctype html>\n<p>my notes</p>\n"),
		writeFile(t, dir, runBase+".3.md", "## my notes\n\nCharts and every metric: [HTML report](elsewhere.html)\n"),
		writeFile(t, dir, "TestOther@result.json", resultJSON(t, "another test", runBase+".4.folded", "")),
		writeFile(t, dir, runBase+".4.folded", "scroll;main 1\n"),
		writeFile(t, dir, runBase+".02.json", resultJSON(t, "not a numbered name", "", "")),
		writeFile(t, dir, runBase+".2.json.bak", resultJSON(t, "a backup", "", "")),
		writeFile(t, dir, "index.html", "<!doctype html>\n"),
	}
	r := &Result{Name: "new"}
	if err := r.WriteInDir(dir, runBase); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, runBase+".json"); r.Path != want {
		t.Errorf("wrote %s, want %s", r.Path, want)
	}
	for _, f := range gone {
		if f == r.Path {
			continue
		}
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("the earlier run's %s is still there (%v)", filepath.Base(f), err)
		}
	}
	for _, f := range kept {
		if _, err := os.Lstat(f); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(f), err)
		}
	}
	want := []string{runBase + ".json"}
	for _, f := range kept {
		want = append(want, filepath.Base(f))
	}
	if files := dirFiles(t, dir); !slices.Equal(files, slices.Sorted(slices.Values(want))) {
		t.Errorf("the folder holds %q, want %q", files, slices.Sorted(slices.Values(want)))
	}
}

// A run still going on keeps its files, whatever their number: the run
// after it replaces only the ended run's, and the one after that, once
// it has ended, its.
func TestResultFilesLiveRunKept(t *testing.T) {
	skipWithoutLocks(t)
	dir := t.TempDir()
	a, aFiles, aDone := startRunChild(t, dir, "a")
	b, bFiles, bDone := startRunChild(t, dir, "b")
	if filepath.Base(aFiles[0]) != runBase+".json" || filepath.Base(bFiles[0]) != runBase+".2.json" {
		t.Fatalf("the runs at once wrote %s and %s", aFiles[0], bFiles[0])
	}
	bBytes := readAll(t, bFiles)
	aDone()
	if err := a.Wait(); err != nil {
		t.Fatal(err)
	}
	r := &Result{Name: "this"}
	if err := r.WriteInDir(dir, runBase); err != nil {
		t.Fatal(err)
	}
	if r.Path != aFiles[0] {
		t.Errorf("wrote %s, want the ended run's name %s", r.Path, aFiles[0])
	}
	for _, f := range aFiles[1:] {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("the ended run's %s is still there (%v)", filepath.Base(f), err)
		}
	}
	if got := readAll(t, bFiles); !slices.Equal(got, bBytes) {
		t.Errorf("the files of the run going on changed: %q", got)
	}
	bDone()
	if err := b.Wait(); err != nil {
		t.Fatal(err)
	}
	out, err := runChild(dir, "c", false).Output()
	if err != nil {
		t.Fatal(err)
	}
	cFiles := strings.Split(firstLine(out), "\t")
	if cFiles[0] != bFiles[0] {
		t.Errorf("the run after wrote %s, want the ended run's name %s", cFiles[0], bFiles[0])
	}
	for _, f := range bFiles[1:3] { // b's trace and stacks
		if !slices.Contains(cFiles, f) {
			if _, err := os.Lstat(f); !os.IsNotExist(err) {
				t.Errorf("the ended run's %s is still there (%v)", filepath.Base(f), err)
			}
		}
	}
	if got, err := ReadResult(r.Path); err != nil || got.Name != "this" {
		t.Errorf("this run's Result, held, was replaced: %v %+v", err, got)
	}
	if got, err := ReadResult(cFiles[0]); err != nil || got.Name != "c" {
		t.Errorf("%s: %v %+v", cFiles[0], err, got)
	}
}

// Runs of one name in one process (go test -count=2) get base.json,
// base.2.json: the second never takes the first's file, even where no
// lock tells (the registry of this process's files alone does), and the
// files a session writes beside its Result are numbered the same way.
func TestResultFilesSameProcess(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		if _, err := writeRunSet(dir, fmt.Sprintf("session %d", i)); err != nil {
			t.Fatal(err)
		}
		releaseHolds(dir)
	}
	want := []string{runBase + ".json", runBase + ".2.json", runBase + ".3.json"}
	for _, f := range want {
		stem := strings.TrimSuffix(f, ".json")
		want = append(want, stem+".folded", stem+".perfetto-trace", stem+".html", stem+".md")
	}
	if files := dirFiles(t, dir); !slices.Equal(files, slices.Sorted(slices.Values(want))) {
		t.Errorf("the folder holds %q, want %q", files, slices.Sorted(slices.Values(want)))
	}
}

// A base.json that is not a Result (a scenario, say, in a folder used as
// results folder), however old, is never replaced or removed: the Result
// goes to base.2.json, run after run. The same holds for JSON of another
// schema, or with the schema not first, and for any other file.
func TestResultFilesNotAResult(t *testing.T) {
	for name, content := range map[string]string{
		"scenario":         `{"package": "com.example.feed", "results": ".", "steps": [{"name": "scroll"}]}`,
		"other schema":     `{"schema": "perfgate.result/v2", "name": "x"}`,
		"schema not first": `{"name": "x", "schema": "perfgate.result/v1"}`,
		"schema as a key":  `{"schema" "perfgate.result/v1"}`,
		"empty":            ``,
		"text":             "perfgate.result/v1\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, runBase+".json", content)
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				r := &Result{Name: fmt.Sprintf("run %d", i)}
				if err := r.WriteInDir(dir, runBase); err != nil {
					t.Fatal(err)
				}
				if want := filepath.Join(dir, runBase+".2.json"); r.Path != want {
					t.Errorf("run %d wrote %s, want %s", i, r.Path, want)
				}
				asNewRun(dir)
			}
			if b, err := os.ReadFile(p); err != nil || string(b) != content {
				t.Errorf("%s now holds %q (%v)", p, b, err)
			}
			if files := dirFiles(t, dir); !slices.Equal(files, []string{runBase + ".2.json", runBase + ".json"}) {
				t.Errorf("the folder holds %q", files)
			}
		})
	}
}

// The name of a folded stacks file or a trace that no Result names is
// taken over only when what is there is of that kind and no one's now;
// a name that is not free takes its whole stem with it, so the files of
// one session go to the next stem together.
func TestResultFilesCompanionNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, runBase+".folded", "scroll;main;draw 3\nscroll;main 1\n")
	folded, err := claimString(dir, runBase, ".folded", "new;main 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, runBase+".folded"); folded != want {
		t.Errorf("folded stacks went to %s, want the earlier run's %s", folded, want)
	}

	dir = t.TempDir()
	writeFile(t, dir, runBase+".perfetto-trace", "my notes on the trace\n")
	st := &Stem{}
	trace, err := st.claimString(dir, runBase, ".perfetto-trace", "\x0a\x01\x00")
	if err != nil {
		t.Fatal(err)
	}
	folded, err = st.claimString(dir, runBase, ".folded", "new;main 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, runBase+".2.perfetto-trace"); trace != want {
		t.Errorf("the trace went to %s, want %s", trace, want)
	}
	if want := filepath.Join(dir, runBase+".2.folded"); folded != want {
		t.Errorf("its folded stacks went to %s, want %s", folded, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, runBase+".perfetto-trace")); string(b) != "my notes on the trace\n" {
		t.Errorf("the notes now read %q", b)
	}
	for _, tc := range []struct {
		b     string
		whole bool
		ok    bool
	}{
		{"a;b 1\n", true, true},
		{"a;b 1\nc 22\n", true, true},
		{"a;b 1\nc 2", false, true},
		{"a;b 1", true, false},
		{"a;b\n", true, false},
		{" 1\n", true, false},
		{"a;b x1\n", true, false},
		{"", true, false},
		{"{\"schema\": 1}\n", true, false},
	} {
		if got := isFoldedStart([]byte(tc.b), tc.whole); got != tc.ok {
			t.Errorf("isFoldedStart(%q, %v) = %v", tc.b, tc.whole, got)
		}
	}
	for _, tc := range []struct {
		b     string
		whole bool
		ok    bool
	}{
		{"\x0a\x02\x08\x01", true, true},
		{"\x0a\x05\x08", false, true},
		{"\x0a\x05\x08", true, false},
		{"\x0a", true, false},
		{"\n\nnotes\n", true, false},
		{"{}", true, false},
	} {
		if got := isTraceStart([]byte(tc.b), tc.whole); got != tc.ok {
			t.Errorf("isTraceStart(%q, %v) = %v", tc.b, tc.whole, got)
		}
	}
}

// A link is never followed, replaced or removed: not at a Result's name,
// where the Result goes to the next name, nor where an earlier Result
// names its trace.
func TestResultFilesSymlink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := writeFile(t, elsewhere, "target.json", resultJSON(t, "a Result elsewhere", "", ""))
	victim := writeFile(t, elsewhere, "victim", "\x0a\x01\x00")
	links := map[string]string{
		runBase + ".json":             target,
		runBase + ".2.json":           target,
		runBase + ".9.perfetto-trace": victim,
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	writeFile(t, dir, runBase+".4.json", resultJSON(t, "earlier", "", filepath.Join(dir, runBase+".9.perfetto-trace")))
	for i := range 2 {
		r := &Result{Name: fmt.Sprintf("run %d", i)}
		if err := r.WriteInDir(dir, runBase); err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, runBase+".3.json"); r.Path != want {
			t.Errorf("run %d wrote %s, want %s", i, r.Path, want)
		}
		asNewRun(dir)
	}
	for name, to := range links {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != to {
			t.Errorf("the link %s now: %q %v", name, got, err)
		}
	}
	if r, err := ReadResult(target); err != nil || r.Name != "a Result elsewhere" {
		t.Errorf("written through a link: %v %+v", err, r)
	}
	if b, _ := os.ReadFile(victim); string(b) != "\x0a\x01\x00" {
		t.Errorf("written through a link: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, runBase+".4.json")); !os.IsNotExist(err) {
		t.Errorf("the earlier Result is still there (%v)", err)
	}
}

// Rewrite replaces the Result whole under its name and keeps it this
// process's: still held (the new file, the old one let go), so a run
// going on at the same time writes beside it rather than over it, and
// still remembered, so a later session of this process does too.
func TestResultRewrite(t *testing.T) {
	dir := t.TempDir()
	const base = "TestX@result"
	r := &Result{Name: "first"}
	if err := r.WriteInDir(dir, base); err != nil {
		t.Fatal(err)
	}
	p := r.Path
	old := filepath.Join(dir, "old-file")
	if err := os.Link(p, old); err != nil {
		t.Fatal(err)
	}
	heldBefore := heldCount()
	r.Notes = []string{"verdict: pass"}
	if err := r.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if r.Path != p {
		t.Errorf("Path %s after Rewrite, want %s", r.Path, p)
	}
	if got, err := ReadResult(p); err != nil || !slices.Equal(got.Notes, r.Notes) {
		t.Errorf("%s after Rewrite: %v %+v", p, err, got)
	}
	if !wroteFile(p) {
		t.Error("the rewritten file is no longer this process's")
	}
	if n := heldCount(); n != heldBefore {
		t.Errorf("%d files held after Rewrite, %d before", n, heldBefore)
	}
	r2 := &Result{Name: "second"}
	if err := r2.WriteInDir(dir, base); err != nil {
		t.Fatal(err)
	}
	if r2.Path != filepath.Join(dir, base+".2.json") {
		t.Errorf("a second session wrote %s", r2.Path)
	}
	if advisoryLocks(t) {
		if !filelock.Held(p) {
			t.Error("the rewritten file is not held")
		}
		if filelock.Held(old) {
			t.Error("the replaced file is still held")
		}
		out, err := writerChild(dir, "concurrent", false).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := firstLine(out); got != filepath.Join(dir, base+".3.json") {
			t.Errorf("a run at the same time wrote %s", got)
		}
	}
	if got, err := ReadResult(p); err != nil || got.Name != "first" {
		t.Errorf("the rewritten Result was replaced: %v %+v", err, got)
	}

	for _, tc := range []struct {
		path, want string
	}{
		{"", "Path is empty"},
		{filepath.Join(dir, "absent.json"), "absent.json"},
		{dir, "not a regular file"},
	} {
		err := (&Result{Path: tc.path}).Rewrite()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Rewrite of %q: %v, want %q", tc.path, err, tc.want)
		}
	}
}

// scanResult tells a Result by its start and reads the members asked for
// through any amount of JSON, strings with quotes and brackets in them
// included.
func TestScanResult(t *testing.T) {
	r := &Result{Name: `a "quoted" {name} [x]`, Notes: []string{`\"}]`}, Causes: &CauseRun{StacksFile: "x.folded"}, Trace: &TraceInfo{File: "x.perfetto-trace", Config: "a\nb {"}}
	r.Frames = make([]frames.Frame, 5000)
	r.Schema = Schema
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	m, err := scanResult(bytes.NewReader(b), "causes", "trace", "absent")
	if err != nil {
		t.Fatal(err)
	}
	var c CauseRun
	var tr TraceInfo
	if json.Unmarshal(m["causes"], &c) != nil || c.StacksFile != "x.folded" || json.Unmarshal(m["trace"], &tr) != nil || tr.File != "x.perfetto-trace" || m["absent"] != nil {
		t.Errorf("members %q", m)
	}
	if !isResultStart(b[:40], false) {
		t.Errorf("the start %q is not a Result's", b[:40])
	}
	if isResultStart(b[:20], false) {
		t.Errorf("a start cut before the schema's value, %q, is a Result's", b[:20])
	}
	if _, err := scanResult(bytes.NewReader(b[:len(b)/2]), "trace"); err == nil {
		t.Error("half a Result read through")
	}
}

// The markers that tell perfgate's reports from other files (see
// isHTMLReport, isMarkdownReport) are what package report writes. The
// test reads report's source, as this binary cannot link report: its
// reporter would join every session of these tests.
func TestReportMarkers(t *testing.T) {
	for file, markers := range map[string][]string{
		"../report/html.go":     {"const pageHead = `<!doctype html>\n", "Every number follows perfgate's metric definitions"},
		"../report/markdown.go": {`"## %s: %s\n\n"`, `"Charts and every metric: [HTML report](%s)\n\n"`},
		"../report/dir.go":      {`opts.HTMLLink = name + ".html"`},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Skipf("report's source: %v", err)
		}
		for _, m := range markers {
			if !strings.Contains(string(b), m) {
				t.Errorf("%s no longer has %q: update isHTMLReport and isMarkdownReport", file, m)
			}
		}
	}
	stem := "TestX@result.2"
	if !isHTMLReport([]byte("<!doctype html>\n<html lang=\"en\">\n<head>\n<title>x</title><body><p class=\"muted\">Generated. Every number follows perfgate's metric definitions and names its source.</p>"), stem) {
		t.Error("the start of an HTML report is not told for one")
	}
	if !isMarkdownReport([]byte("## TestX: ✅ no failures\n\nCharts and every metric: [HTML report]("+stem+".html)\n\n### x"), stem) {
		t.Error("the start of a Markdown report is not told for one")
	}
	if isMarkdownReport([]byte("## TestX: ✅ no failures\n\nCharts and every metric: [HTML report](TestX@result.html)\n\n"), stem) {
		t.Error("the Markdown report of another Result is told for this one's")
	}
}

// runChild runs TestResultRunChild in a process of its own.
func runChild(dir, name string, wait bool) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestResultRunChild$")
	cmd.Env = append(os.Environ(), "PERFGATE_TEST_RUN_DIR="+dir, "PERFGATE_TEST_RUN_NAME="+name)
	if wait {
		cmd.Env = append(cmd.Env, "PERFGATE_TEST_RUN_WAIT=1")
	}
	cmd.Stderr = os.Stderr
	return cmd
}

// startRunChild starts a run that writes its files and goes on until done
// is called, and returns the files.
func startRunChild(t *testing.T, dir, name string) (cmd *exec.Cmd, files []string, done func()) {
	t.Helper()
	cmd = runChild(dir, name, true)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("run %s: %v", name, err)
	}
	return cmd, strings.Split(strings.TrimSpace(line), "\t"), func() { stdin.Close() }
}

// TestResultRunChild writes one run's files (writeRunSet) as a process of
// its own, prints them, and with PERFGATE_TEST_RUN_WAIT=1 lives on until
// its input ends.
func TestResultRunChild(t *testing.T) {
	dir := os.Getenv("PERFGATE_TEST_RUN_DIR")
	if dir == "" {
		t.Skip("runs as a child of the tests of a run's files")
	}
	files, err := writeRunSet(dir, os.Getenv("PERFGATE_TEST_RUN_NAME"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(strings.Join(files, "\t"))
	if os.Getenv("PERFGATE_TEST_RUN_WAIT") == "1" {
		io.Copy(io.Discard, os.Stdin)
	}
}

// writeRunSet writes the files of one session of runBase into dir as a
// session with causes and a trace, and a reporter, write them: the trace,
// the folded stacks, the Result naming both, all under one stem, its HTML
// and Markdown reports. It returns them in that order.
func writeRunSet(dir, name string) ([]string, error) {
	st := &Stem{}
	trace, err := st.claimString(dir, runBase, ".perfetto-trace", "\x0a\x02\x08\x01")
	if err != nil {
		return nil, err
	}
	stacks, err := st.claimString(dir, runBase, ".folded", "scroll;main;draw 3\n")
	if err != nil {
		return nil, err
	}
	r := &Result{Name: name, Causes: &CauseRun{StacksFile: filepath.Base(stacks)}, Trace: &TraceInfo{File: trace}}
	if err := r.WriteInStem(dir, runBase, st); err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(r.Path, ".json")
	html, md := htmlReport(name), markdownReport(name, filepath.Base(stem))
	for f, s := range map[string]string{stem + ".html": html, stem + ".md": md} {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			return nil, err
		}
	}
	return []string{r.Path, trace, stacks, stem + ".html", stem + ".md"}, nil
}

// claimString writes s into dir under the first free name of base with
// extension ext, a file of a stem of its own.
func claimString(dir, base, ext, s string) (string, error) {
	return (*Stem)(nil).claimString(dir, base, ext, s)
}

// claimString writes s into dir under the stem with extension ext, as a
// session writes its trace and folded stacks.
func (st *Stem) claimString(dir, base, ext, s string) (string, error) {
	tmp, err := os.CreateTemp(dir, ".claim.*")
	if err != nil {
		return "", err
	}
	tmp.WriteString(s)
	tmp.Close()
	p, err := st.Claim(dir, base, ext, tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
	}
	return p, err
}

// earlierRun writes the files an earlier run left in dir (no process
// holds them, this one did not write them): the Result stem.json, its
// folded stacks base<stacks>.folded and trace base<trace>.perfetto-trace,
// and its reports. It returns them.
func earlierRun(t *testing.T, dir, stem, stacks, trace string) []string {
	t.Helper()
	stacks, trace = runBase+stacks+".folded", filepath.Join(dir, runBase+trace+".perfetto-trace")
	return []string{
		writeFile(t, dir, stem+".json", resultJSON(t, "earlier "+stem, stacks, trace)),
		writeFile(t, dir, stacks, "scroll;main 2\n"),
		writeFile(t, dir, filepath.Base(trace), "\x0a\x02\x08\x01"),
		writeFile(t, dir, stem+".html", htmlReport("earlier "+stem)),
		writeFile(t, dir, stem+".md", markdownReport("earlier "+stem, stem)),
	}
}

// resultJSON is a Result as WriteInDir writes it, naming its folded
// stacks and trace when given.
func resultJSON(t *testing.T, name, stacks, trace string) string {
	t.Helper()
	r := &Result{Schema: Schema, Name: name}
	if stacks != "" {
		r.Causes = &CauseRun{StacksFile: stacks}
	}
	if trace != "" {
		r.Trace = &TraceInfo{File: trace}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// htmlReport and markdownReport start as package report's reports do
// (see TestReportMarkers).
func htmlReport(name string) string {
	return "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + name + "</title>\n</head>\n<body>\n<h1>" + name +
		"</h1>\n<p class=\"muted\">Generated from sessions ending 2026-01-02T03:04:05Z. Every number follows perfgate's metric definitions and names its source.</p>\n"
}

func markdownReport(name, stem string) string {
	return "## " + name + ": ✅ no failures (no budgets given)\n\nCharts and every metric: [HTML report](" + stem + ".html)\n\n### ✅ " + name + "\n"
}

// advisoryLocks reports whether this system has the locks that tell a
// running process's files (filelock.Hold).
func advisoryLocks(t *testing.T) bool {
	t.Helper()
	p := writeFile(t, t.TempDir(), "probe", "")
	release, err := filelock.Hold(p)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	return filelock.Held(p)
}

// skipWithoutLocks skips a test of runs going on at once where nothing
// tells a running process's files from an ended one's.
func skipWithoutLocks(t *testing.T) {
	t.Helper()
	if !advisoryLocks(t) {
		t.Skip("no advisory locks: a run going on is not told from an ended one")
	}
}

// firstLine is what a child printed before the test binary's own lines.
func firstLine(out []byte) string {
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

// readAll reads each of files.
func readAll(t *testing.T, files []string) []string {
	t.Helper()
	var all []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, string(b))
	}
	return all
}

// writeFile writes s into dir/name and returns the path.
func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirFiles lists the names in dir, sorted, but the hidden ones.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// releaseHolds lets go of the locks on this process's files in dir, as
// where there are no advisory locks: the files stay this process's.
func releaseHolds(dir string) {
	prefix := absPath(dir) + string(filepath.Separator)
	ownFiles.Lock()
	defer ownFiles.Unlock()
	for k, release := range ownFiles.held {
		if strings.HasPrefix(k, prefix) {
			release()
			delete(ownFiles.held, k)
		}
	}
}

// asNewRun makes this process start over in dir as a new process would:
// the files it wrote there are an earlier run's, and its next claim there
// clears them away.
func asNewRun(dir string) {
	releaseHolds(dir)
	abs := absPath(dir)
	ownFiles.Lock()
	defer ownFiles.Unlock()
	for k := range ownFiles.wrote {
		if strings.HasPrefix(k, abs+string(filepath.Separator)) {
			delete(ownFiles.wrote, k)
		}
	}
	for k := range ownFiles.swept {
		if strings.HasPrefix(k, abs+"\x00") {
			delete(ownFiles.swept, k)
		}
	}
}

// heldCount is how many files this process holds.
func heldCount() int {
	ownFiles.Lock()
	defer ownFiles.Unlock()
	return len(ownFiles.held)
}
