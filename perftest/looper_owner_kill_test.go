//go:build unix

package perftest_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// A test binary killed while its session holds the Looper property
// (SIGKILL: no handler runs, no Stop) leaves it set, and marked. A session
// started while the killed one's lease still runs shares the property and
// leaves it set; the first session after the lease ran out on the phone's
// clock restores the value from before the killed session, says so, and at
// its own Stop leaves the property as it was before either.
func TestLooperLeftoverOfKilledSession(t *testing.T) {
	if os.Getenv(guardChildEnv) != "" {
		t.Skip("the child's own run")
	}
	t.Parallel()
	dev := markPhone(t, "sim-guard", "100")
	child := startLooperChild(t, dev)
	wantProp(t, dev, "the child's session running", "16")
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	wantProp(t, dev, "the child killed", "16")
	if f := markFiles(t, dev); len(owners(f)) != 1 || !strings.Contains(f["original"], `original "100"`) {
		t.Errorf("the killed session's mark: %q", f)
	}

	d, _ := openHost(t, dev, nil)
	next := func(want string) *result.Result {
		t.Helper()
		s := perftest.Start(t, d, perftest.WithConfig(markConfig(t)))
		wantProp(t, dev, "the next session running", "16")
		r := s.Stop()
		wantProp(t, dev, "the next session stopped", want)
		return r
	}
	r := next("16")
	wantNote(t, r, "also held by 1 other live session(s)", `restores it to "100"`)

	dev.World().Skip(looperLease + time.Second)
	r = next("100")
	wantNote(t, r, "blocks: "+looperProp+` was left at 16 by an earlier session that ended without restoring it; restored to "100" (its value before)`)
	if f := markFiles(t, dev); f != nil {
		t.Errorf("mark after the leftover was restored: %q, want none", f)
	}
}

// startLooperChild starts TestLooperGuardChild on dev (serial sim-guard)
// and waits until its session runs.
func startLooperChild(t *testing.T, dev adbtest.Device) *exec.Cmd {
	t.Helper()
	srv := adbtest.NewServer(dev)
	t.Cleanup(srv.Close)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLooperGuardChild$", "-test.v")
	// The killed child cannot remove its temporary directories.
	cmd.Env = append(os.Environ(), guardChildEnv+"="+srv.Addr, guardResultsEnv+"="+t.TempDir(), "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewScanner(out)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if strings.HasPrefix(lines.Text(), "guard child: session started") {
			go func() {
				for lines.Scan() {
				}
			}()
			return cmd
		}
	}
	cmd.Wait()
	t.Fatalf("the child never started its session:\n%s", strings.Join(seen, "\n"))
	return nil
}
