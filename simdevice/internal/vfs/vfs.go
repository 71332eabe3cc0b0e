// Package vfs is the simulated phone's file tree as a shell user (or root)
// sees it. It has four kinds of places:
//   - a writable in-memory tree: /data/local/tmp and the shared storage
//     (/storage/emulated/0, also reached as /sdcard and /storage/self/primary);
//     as root, all of /data;
//   - /proc and /sys, whose files a Rendered source (the simulated world)
//     renders on every read;
//   - /dev/null;
//   - a read-only skeleton (/, /system, /vendor, ...) that refuses writes
//     the way a real phone's dm-verity partitions do.
//
// Paths given to an FS are canonical: absolute and cleaned by Clean, which
// also maps the shared-storage aliases. Errors are *fs.PathError values
// whose Err is the errno a phone's kernel returns (syscall.EROFS,
// syscall.EACCES, fs.ErrNotExist …), so callers print toybox's messages.
package vfs

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"
)

// FS is the whole file tree of one device as one user sees it. Its fields
// are set once; an FS is safe for concurrent use.
type FS struct {
	// Tree is the writable part, shared by every user of the device.
	Tree *Tree
	// Rendered serves /proc and /sys.
	Rendered Rendered
	// Root makes the operations run as root instead of the shell user.
	Root bool
	// BuildProp renders /system/build.prop.
	BuildProp func() []byte
	// Commands are the names under /system/bin.
	Commands []string
	// Boot is the time the device booted: the mtime of every file of the
	// read-only skeleton.
	Boot time.Time
}

// Rendered is the source of the files under /proc and /sys, which are
// rendered anew on every read. Both methods fail with an error satisfying
// errors.Is(err, fs.ErrNotExist) for a path that does not exist.
type Rendered interface {
	// ReadFile returns the content of a file.
	ReadFile(p string) ([]byte, error)
	// ReadDir returns the names in a directory.
	ReadDir(p string) ([]string, error)
}

// Stat follows the tree's few symlinks, as stat(2) does.
func (v *FS) Stat(p string) (fs.FileInfo, error) {
	switch {
	case inMem(p):
		v.Tree.mu.RLock()
		n, ok := v.Tree.nodes[p]
		var fi *fileInfo
		if ok {
			fi = v.Tree.info(p, n)
		}
		v.Tree.mu.RUnlock()
		if !ok {
			if p == "/data" || !v.user().root && !shellWritable(p) && hasPrefixDir(p, "/data") {
				return nil, pathErr("stat", p, syscall.EACCES)
			}
			return nil, pathErr("stat", p, fs.ErrNotExist)
		}
		return fi, nil
	case inRendered(p):
		return v.renderedStat(p)
	case p == "/dev/null":
		return &fileInfo{name: "null", mode: fs.ModeDevice | fs.ModeCharDevice | 0o666, mtime: v.Boot, owner: "root", group: "root"}, nil
	case p == "/system/build.prop":
		return &fileInfo{name: "build.prop", size: int64(len(v.BuildProp())), mode: 0o600 | 0o044, mtime: v.Boot, owner: "root", group: "root"}, nil
	case path.Dir(p) == "/system/bin":
		if slices.Contains(v.Commands, path.Base(p)) {
			return &fileInfo{name: path.Base(p), size: 0, mode: 0o755, mtime: v.Boot, owner: "root", group: "shell"}, nil
		}
	}
	if _, ok := skeleton[p]; ok || p == "/system/bin" {
		return &fileInfo{name: path.Base(p), size: 4096, mode: fs.ModeDir | 0o755, mtime: v.Boot, owner: "root", group: "root"}, nil
	}
	return nil, pathErr("stat", p, fs.ErrNotExist)
}

// renderedStat asks Rendered whether p is a directory or a file. Kernel files
// under /proc report size 0 and sysfs files 4096, as stat(2) does on a phone.
func (v *FS) renderedStat(p string) (fs.FileInfo, error) {
	if p == "/proc" || p == "/sys" {
		return &fileInfo{name: path.Base(p), mode: fs.ModeDir | 0o555, mtime: v.Boot, owner: "root", group: "root"}, nil
	}
	if _, err := v.Rendered.ReadDir(p); err == nil {
		return &fileInfo{name: path.Base(p), mode: fs.ModeDir | 0o555, mtime: v.Boot, owner: "root", group: "root"}, nil
	}
	size := int64(0)
	if hasPrefixDir(p, "/sys") {
		size = 4096
	}
	_, err := v.Rendered.ReadFile(p)
	switch {
	case err == nil:
		return &fileInfo{name: path.Base(p), size: size, mode: 0o444, mtime: v.Boot, owner: "root", group: "root"}, nil
	case errors.Is(err, fs.ErrPermission):
		return &fileInfo{name: path.Base(p), size: size, mode: 0o400, mtime: v.Boot, owner: "root", group: "root"}, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, pathErr("stat", p, fs.ErrNotExist)
	default:
		return nil, pathErr("stat", p, err)
	}
}

// ReadDir lists directory p sorted by name.
func (v *FS) ReadDir(p string) ([]fs.FileInfo, error) {
	fi, err := v.Stat(p)
	if err != nil {
		return nil, pathErr("readdir", p, underlying(err))
	}
	if !fi.IsDir() {
		return nil, pathErr("readdir", p, syscall.ENOTDIR)
	}
	var out []fs.FileInfo
	switch {
	case inMem(p):
		if err := v.user().mayList(p); err != nil {
			return nil, pathErr("readdir", p, err)
		}
		v.Tree.mu.RLock()
		for q, n := range v.Tree.nodes {
			if path.Dir(q) == p && q != p {
				out = append(out, v.Tree.info(q, n))
			}
		}
		v.Tree.mu.RUnlock()
	case inRendered(p):
		names, err := v.Rendered.ReadDir(p)
		if err != nil {
			return nil, pathErr("readdir", p, underlying(err))
		}
		for _, name := range names {
			out = append(out, &lazyInfo{v: v, p: path.Join(p, name)})
		}
	case p == "/system/bin":
		for _, c := range v.Commands {
			if fi, err := v.Stat("/system/bin/" + c); err == nil {
				out = append(out, fi)
			}
		}
	default:
		for _, name := range skeleton[p] {
			q := path.Join(p, name)
			if fi, err := v.Stat(Clean(q, "/")); err == nil {
				if q != Clean(q, "/") {
					fi = &fileInfo{name: name, mode: fs.ModeSymlink | 0o777, mtime: v.Boot, owner: "root", group: "root"}
				}
				out = append(out, fi)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// lazyInfo stats a rendered entry only when asked, so that a glob over /proc
// does not render every process's files.
type lazyInfo struct {
	v    *FS
	p    string
	once sync.Once
	fi   fs.FileInfo
}

func (l *lazyInfo) get() fs.FileInfo {
	l.once.Do(func() {
		fi, err := l.v.Stat(l.p)
		if err != nil {
			fi = &fileInfo{name: path.Base(l.p), mode: 0o444}
		}
		l.fi = fi
	})
	return l.fi
}

func (l *lazyInfo) Name() string       { return path.Base(l.p) }
func (l *lazyInfo) Size() int64        { return l.get().Size() }
func (l *lazyInfo) Mode() fs.FileMode  { return l.get().Mode() }
func (l *lazyInfo) ModTime() time.Time { return l.get().ModTime() }
func (l *lazyInfo) IsDir() bool        { return l.get().IsDir() }
func (l *lazyInfo) Sys() any           { return nil }

// underlying strips a *fs.PathError so that it can be re-wrapped with the
// operation that failed.
func underlying(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFile returns the content of file p.
func (v *FS) ReadFile(p string) ([]byte, error) {
	switch {
	case inMem(p):
		v.Tree.mu.RLock()
		n, ok := v.Tree.nodes[p]
		var data []byte
		if ok && !n.dir {
			data = bytes.Clone(n.data)
		}
		v.Tree.mu.RUnlock()
		if !ok {
			_, err := v.Stat(p)
			return nil, pathErr("open", p, underlying(err))
		}
		if n.dir {
			return nil, pathErr("read", p, syscall.EISDIR)
		}
		if !v.user().mayRead(n, groupOf(p)) {
			return nil, pathErr("open", p, syscall.EACCES)
		}
		return data, nil
	case inRendered(p):
		data, err := v.Rendered.ReadFile(p)
		if err != nil {
			if _, derr := v.Rendered.ReadDir(p); derr == nil || p == "/proc" || p == "/sys" {
				return nil, pathErr("read", p, syscall.EISDIR)
			}
			return nil, pathErr("open", p, underlying(err))
		}
		return data, nil
	case p == "/dev/null":
		return nil, nil
	case p == "/system/build.prop":
		return v.BuildProp(), nil
	}
	fi, err := v.Stat(p)
	if err != nil {
		return nil, pathErr("open", p, underlying(err))
	}
	if fi.IsDir() {
		return nil, pathErr("read", p, syscall.EISDIR)
	}
	// The executables under /system/bin are simulated; reading one gives
	// nothing rather than host bytes.
	return nil, nil
}

// fileInfo is the fs.FileInfo of every place in the tree.
type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	owner string
	group string
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mtime }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return nil }

func pathErr(op, p string, err error) error { return &fs.PathError{Op: op, Path: p, Err: err} }

// Rewrap replaces the operation and path of a *fs.PathError, so that an
// error about a canonical path names the path the caller was given.
func Rewrap(op, p string, err error) error { return pathErr(op, p, underlying(err)) }

// Owner returns the user and group that own the file fi describes, as ls -l
// shows them; root for anything this package did not stat.
func Owner(fi fs.FileInfo) (owner, group string) {
	if x, ok := fi.(*fileInfo); ok {
		return x.owner, x.group
	}
	return "root", "root"
}
