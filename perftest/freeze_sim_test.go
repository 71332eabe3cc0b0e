package perftest_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/simdevice"
)

// freezingPhone is a simulated phone that can freeze as a whole, as a
// phone whose system hangs does: while frozen, every shell command and
// every file its sync service serves waits for the thaw (a command gives
// up when its stream closes, as the host's deadline closes it). The app
// stops drawing too when the test has it idle first; the phone's clock
// runs on.
type freezingPhone struct {
	*simdevice.Device
	mu   sync.Mutex
	thaw chan struct{} // non-nil while frozen; closed by the thaw
	// held gets each request that arrives while frozen, as it arrives.
	held chan string
	// With stall set, the next pull of a perfgate trace sends half the
	// file, says so on stalled, and waits for resume: then it goes on, or,
	// with cut, fails as a phone taken away in the middle of it.
	stall   bool
	stalled chan string
	resume  chan struct{}
	cut     bool
}

func newFreezingPhone(dev *simdevice.Device) *freezingPhone {
	return &freezingPhone{Device: dev, held: make(chan string, 1000), stalled: make(chan string, 10), resume: make(chan struct{})}
}

// freeze stops the phone answering.
func (f *freezingPhone) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thaw == nil {
		f.thaw = make(chan struct{})
	}
}

// unfreeze lets every waiting command run, and the phone answer again.
func (f *freezingPhone) unfreeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thaw != nil {
		close(f.thaw)
		f.thaw = nil
	}
}

// wait holds a request while the phone is frozen; false when its stream
// closed first.
func (f *freezingPhone) wait(ctx context.Context, what string) bool {
	f.mu.Lock()
	thaw := f.thaw
	f.mu.Unlock()
	if thaw == nil {
		return true
	}
	f.held <- what
	select {
	case <-thaw:
		return true
	case <-ctx.Done():
		return false
	}
}

func (f *freezingPhone) Shell(ctx context.Context, cmd string, stdin io.Reader, stdout, stderr io.Writer) int {
	if !f.wait(ctx, cmd) {
		return 255
	}
	return f.Device.Shell(ctx, cmd, stdin, stdout, stderr)
}

func (f *freezingPhone) Stat(p string) (fs.FileInfo, error) {
	f.wait(context.Background(), "stat "+p)
	return f.Device.Stat(p)
}

func (f *freezingPhone) Open(p string) (io.ReadCloser, error) {
	f.wait(context.Background(), "pull "+p)
	f.mu.Lock()
	stall := f.stall && strings.HasPrefix(p, traceDir+"/perfgate-")
	if stall {
		f.stall = false // one pull stalls
	}
	f.mu.Unlock()
	r, err := f.Device.Open(p)
	if err != nil || !stall {
		return r, err
	}
	fi, err := f.Device.Stat(p)
	if err != nil {
		r.Close()
		return nil, err
	}
	return &stallingReader{ReadCloser: r, f: f, path: p, left: fi.Size() / 2}, nil
}

// stallingReader is a pull that stalls halfway (freezingPhone.stall).
type stallingReader struct {
	io.ReadCloser
	f    *freezingPhone
	path string
	left int64 // bytes before the stall; -1 once past it
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		r.left = -1
		r.f.stalled <- r.path
		<-r.f.resume
		r.f.mu.Lock()
		cut := r.f.cut
		r.f.mu.Unlock()
		if cut {
			return 0, errors.New("the phone went away")
		}
	}
	if r.left > 0 && int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.ReadCloser.Read(p)
	if r.left > 0 {
		r.left -= int64(n)
	}
	return n, err
}

// goOn ends a stalled pull: it goes on, or with cut it fails.
func (f *freezingPhone) goOn(cut bool) {
	f.mu.Lock()
	f.cut = cut
	f.mu.Unlock()
	close(f.resume)
}

// waitHeld waits for a request that ok accepts to arrive at the frozen
// phone. A minute bounds a broken test, not the wait.
func (f *freezingPhone) waitHeld(t *testing.T, ok func(string) bool) string {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case cmd := <-f.held:
			if ok(cmd) {
				return cmd
			}
		case <-timeout:
			t.Fatal("no such command reached the frozen phone within a minute")
		}
	}
}
