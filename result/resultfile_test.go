package result

import (
	"fmt"
	"io"
	"os"
	"os/exec"
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
