package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// Under -race, Main ran the binary again with the detector's exit sleep
// off, keeping what GORACE said before.
func TestSkipRaceExitSleep(t *testing.T) {
	if !raceEnabled {
		t.Skip("only a binary built with -race runs itself again")
	}
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		t.Fatalf("GORACE=%q in a -race test binary, want atexit_sleep_ms=0", g)
	}
	if os.Getenv("TESTENV_CHILD") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^(TestSkipRaceExitSleep|TestGORACEKept)$", "-test.v")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GORACE=halt_on_error=1", "TESTENV_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestSkipRaceExitSleep") || !strings.Contains(string(out), "--- PASS: TestGORACEKept") {
		t.Fatalf("child did not pass:\n%s", out)
	}
}

// The child of TestSkipRaceExitSleep sees its own GORACE options too.
func TestGORACEKept(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "" || !raceEnabled {
		t.Skip("checked in the child of TestSkipRaceExitSleep")
	}
	if g := os.Getenv("GORACE"); g != "halt_on_error=1 atexit_sleep_ms=0" {
		t.Errorf("GORACE=%q, want the child's own option kept", g)
	}
}
