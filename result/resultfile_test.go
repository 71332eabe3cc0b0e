package result

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestPackageInModule(t *testing.T) {
	for _, tc := range []struct{ binary, module, want string }{
		{"github.com/perfgate/perfgate/example_test.test", "github.com/perfgate/perfgate", "example_test"},
		{"github.com/perfgate/perfgate/cmd/perfgate.test", "github.com/perfgate/perfgate", "cmd/perfgate"},
		{"github.com/perfgate/perfgate.test", "github.com/perfgate/perfgate", "perfgate"},
		{"github.com/perfgate/perfgate/cmd/perfgate", "github.com/perfgate/perfgate", ""},
		{"command-line-arguments.test", "", "command-line-arguments"},
	} {
		if got := packageInModule(tc.binary, tc.module); got != tc.want {
			t.Errorf("packageInModule(%q, %q) = %q, want %q", tc.binary, tc.module, got, tc.want)
		}
	}
	if got := TestPackage(); got != "result" {
		t.Errorf("TestPackage() = %q in result's test binary", got)
	}
}

// writerChild runs TestResultWriterChild in a process of its own.
func writerChild(dir, name string, wait bool) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestResultWriterChild$")
	cmd.Env = append(os.Environ(), "PERFGATE_TEST_RESULT_DIR="+dir, "PERFGATE_TEST_RESULT_NAME="+name)
	if wait {
		cmd.Env = append(cmd.Env, "PERFGATE_TEST_RESULT_WAIT=1")
	}
	return cmd
}

// TestResultWriterChild writes one Result as a process of its own, prints
// where, and with PERFGATE_TEST_RESULT_WAIT=1 lives on until its input
// ends.
func TestResultWriterChild(t *testing.T) {
	dir := os.Getenv("PERFGATE_TEST_RESULT_DIR")
	if dir == "" {
		t.Skip("runs as a child of the WriteInDir tests")
	}
	r := &Result{Name: os.Getenv("PERFGATE_TEST_RESULT_NAME")}
	if err := r.WriteInDir(dir, "TestX@result"); err != nil {
		t.Fatal(err)
	}
	fmt.Println(r.Path)
	if os.Getenv("PERFGATE_TEST_RESULT_WAIT") == "1" {
		io.Copy(io.Discard, os.Stdin)
	}
}

// Sessions of one run never take each other's file (go test -count=2),
// while a Result an earlier run left is replaced, and a link is never
// written through.
func TestWriteInDir(t *testing.T) {
	dir := t.TempDir()
	old := writeFile(t, dir, "TestX@result.json", resultJSON(t, "an earlier run's", "", ""))
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	linked := os.Symlink(victim, filepath.Join(dir, "TestX@result.2.json")) == nil
	var paths []string
	for i := range 3 {
		r := &Result{Name: fmt.Sprintf("run %d", i)}
		if err := r.WriteInDir(dir, "TestX@result"); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, r.Path)
	}
	want := []string{old, filepath.Join(dir, "TestX@result.2.json"), filepath.Join(dir, "TestX@result.3.json")}
	if linked {
		want[1], want[2] = want[2], filepath.Join(dir, "TestX@result.4.json")
	}
	if !slices.Equal(paths, want) {
		t.Errorf("written to\n%q\nwant\n%q", paths, want)
	}
	for i, p := range paths {
		if r, err := ReadResult(p); err != nil || r.Name != fmt.Sprintf("run %d", i) {
			t.Errorf("%s: %v %+v", p, err, r)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("written through a link: %q", b)
	}
	if err := (&Result{}).WriteInDir(dir, "../x"); err == nil {
		t.Error("a name with a folder in it was accepted")
	}
}

// Runs at once never overwrite each other's Results: four processes and
// four sessions of this one write the same test's Result into one folder,
// and eight files come out, each its writer's. The processes live on
// until all have written: one that has ended is an earlier run, whose
// Result a later one replaces.
func TestWriteInDirConcurrentRuns(t *testing.T) {
	skipWithoutLocks(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	var cmds []*exec.Cmd
	var stdins []io.Closer
	for i := range 4 {
		cmd := writerChild(dir, fmt.Sprintf("child %d", i), true)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stdins = append(cmds, cmd), append(stdins, stdin)
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
				t.Errorf("child %d: %v", i, err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := (&Result{Name: fmt.Sprintf("parent %d", i)}).WriteInDir(dir, "TestX@result"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	defer func() {
		for i, c := range cmds {
			stdins[i].Close()
			if err := c.Wait(); err != nil {
				t.Errorf("child: %v", err)
			}
		}
	}()
	files, _ := filepath.Glob(filepath.Join(dir, "TestX@result*.json"))
	var names []string
	for _, f := range files {
		r, err := ReadResult(f)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, r.Name)
	}
	slices.Sort(names)
	want := []string{"child 0", "child 1", "child 2", "child 3", "parent 0", "parent 1", "parent 2", "parent 3"}
	if !slices.Equal(names, want) {
		t.Errorf("Results %q, want %q", names, want)
	}
}

// A run that wrote its Result before this one began, and still runs,
// keeps its file; once it has ended, the file is an earlier run's and is
// replaced, though this process wrote into the folder since.
func TestWriteInDirRunStillGoing(t *testing.T) {
	skipWithoutLocks(t)
	dir := t.TempDir()
	first := writerChild(dir, "first", true)
	stdin, _ := first.StdinPipe()
	stdout, _ := first.StdoutPipe()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("first writer: %v", err)
	}
	p := strings.TrimSpace(line)
	r := &Result{Name: "second"}
	if err := r.WriteInDir(dir, "TestX@result"); err != nil {
		t.Fatal(err)
	}
	if r.Path == p {
		t.Fatalf("the Result of a run still going on, %s, was replaced", p)
	}
	stdin.Close()
	if err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	r = &Result{Name: "third"}
	if err := r.WriteInDir(dir, "TestX@result"); err != nil {
		t.Fatal(err)
	}
	if r.Path != p {
		t.Errorf("the Result of an ended run was not replaced: wrote %s, not %s", r.Path, p)
	}
}
