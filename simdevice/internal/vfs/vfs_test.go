package vfs

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

func TestApplyMode(t *testing.T) {
	for _, tc := range []struct {
		old  uint32
		mode string
		want uint32
		ok   bool
	}{
		{0o644, "755", 0o755, true},
		{0o644, "u+x", 0o744, true},
		{0o777, "go-w", 0o755, true},
		{0o600, "a+r", 0o644, true},
		{0o777, "o=", 0o770, true},
		{0o000, "+x", 0o111, true},
		{0o644, "8", 0, false},
		{0o644, "u*x", 0, false},
		{0o644, "", 0, false},
		{0o644, "77777", 0, false},
	} {
		got, err := applyMode(fs.FileMode(tc.old), tc.mode)
		if (err == nil) != tc.ok || tc.ok && uint32(got) != tc.want {
			t.Errorf("applyMode(%o, %q) = %o, %v; want %o ok=%v", tc.old, tc.mode, got, err, tc.want, tc.ok)
		}
	}
}

// noRendered has no /proc or /sys files at all.
type noRendered struct{}

func (noRendered) ReadFile(p string) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func (noRendered) ReadDir(p string) ([]string, error) {
	return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
}

// The shell user writes only below /data/local/tmp and the shared storage;
// the partitions refuse with EROFS and /data with EACCES, as on a phone.
// Root may write all of /data, but the partitions stay read-only.
func TestWhoMayWriteWhere(t *testing.T) {
	boot := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	tree := NewTree(boot)
	for _, tc := range []struct {
		root bool
		p    string
		want error // nil: the write succeeds
	}{
		{false, TmpDir + "/f", nil},
		{false, Clean("/sdcard/Download/f", "/"), nil},
		{false, "/system/f", syscall.EROFS},
		{false, "/vendor/etc/f", syscall.EROFS},
		{false, "/data/f", syscall.EACCES},
		{false, "/proc/stat", syscall.EACCES},
		{false, "/nope/f", syscall.ENOENT},
		{true, "/data/f", nil},
		{true, "/system/f", syscall.EROFS},
	} {
		v := &FS{Tree: tree, Rendered: noRendered{}, Root: tc.root, BuildProp: func() []byte { return nil }, Boot: boot}
		err := v.WriteFile(tc.p, []byte("x"), 0o644, boot, false)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("root %v: WriteFile(%s) = %v, want %v", tc.root, tc.p, err, tc.want)
			continue
		}
		if tc.want == nil {
			if got, err := v.ReadFile(tc.p); err != nil || string(got) != "x" {
				t.Errorf("root %v: ReadFile(%s) = %q, %v after writing x", tc.root, tc.p, got, err)
			}
		}
	}
}

// The storage aliases are one directory.
func TestCleanMapsStorageAliases(t *testing.T) {
	for _, tc := range []struct{ p, cwd, want string }{
		{"/sdcard/a", "/", StorageDir + "/a"},
		{"/storage/self/primary", "/", StorageDir},
		{"../b", "/mnt/sdcard/x", StorageDir + "/b"},
		{"/sdcardx", "/", "/sdcardx"},
		{"f", "", "/f"},
	} {
		if got := Clean(tc.p, tc.cwd); got != tc.want {
			t.Errorf("Clean(%q, %q) = %q, want %q", tc.p, tc.cwd, got, tc.want)
		}
	}
}
