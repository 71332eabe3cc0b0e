package filelock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A second Lock gives up after its timeout and says who holds the lock;
// once released, the file is gone and the lock free again.
func TestLockHeld(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".x.lock")
	unlock, err := Lock(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(p, 20*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("second lock: %v, want ErrTimeout", err)
	}
	want := fmt.Sprintf("lock %s: lock still held by pid %d on ", p, os.Getpid())
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "after waiting 20ms") {
		t.Errorf("got  %v\nwant %s…", err, want)
	}
	unlock()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
	unlock, err = Lock(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}

// A waiter takes the lock as soon as the holder lets go.
func TestLockWaits(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".x.lock")
	unlock, err := Lock(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error)
	go func() {
		u, err := Lock(p, time.Hour)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// Holders never overlap, though each removes the file as it leaves.
func TestLockExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".x.lock")
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				unlock, err := Lock(p, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				runtime.Gosched()
				inside.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if n := overlaps.Load(); n > 0 {
		t.Errorf("%d overlapping holders", n)
	}
}

// A symbolic link planted where the lock goes is refused, and what it
// points at is left alone.
func TestLockRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".x.lock")
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := Lock(p, time.Second)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v, want the lock named and the link refused", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the link's target now holds %q", b)
	}
}

func TestTimeout(t *testing.T) {
	t.Setenv(EnvTimeout, "")
	if d, err := Timeout(); d != DefaultTimeout || err != nil {
		t.Errorf("default: %v %v", d, err)
	}
	t.Setenv(EnvTimeout, "2m")
	if d, err := Timeout(); d != 2*time.Minute || err != nil {
		t.Errorf("2m: %v %v", d, err)
	}
	for _, bad := range []string{"soon", "-1s", "0"} {
		t.Setenv(EnvTimeout, bad)
		if _, err := Timeout(); err == nil || !strings.Contains(err.Error(), EnvTimeout+`="`+bad+`"`) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// A file held by a process reads as held until released.
func TestHold(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no advisory locks")
	}
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Held(p) {
		t.Fatal("held before Hold")
	}
	release, err := Hold(p)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(p) {
		t.Error("not held after Hold")
	}
	release()
	if Held(p) {
		t.Error("held after release")
	}
	if Held(filepath.Join(t.TempDir(), "absent")) {
		t.Error("a missing file is held")
	}
}
