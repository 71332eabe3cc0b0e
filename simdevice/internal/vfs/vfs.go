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
	"strings"
	"sync"
	"syscall"
	"time"
)

// Canonical roots of the writable tree.
const (
	TmpDir     = "/data/local/tmp"
	StorageDir = "/storage/emulated/0"
)

// storageAliases are the names a phone gives its primary shared storage.
var storageAliases = []string{"/sdcard", "/storage/self/primary", "/mnt/sdcard"}

// readOnlyRoots are mounted read-only on a production build.
var readOnlyRoots = []string{"/system", "/system_ext", "/vendor", "/product", "/odm", "/apex", "/oem"}

// skeleton lists the directories of the read-only part of the tree.
var skeleton = map[string][]string{
	"/": {"acct", "apex", "cache", "config", "d", "data", "dev", "etc", "mnt", "odm", "oem",
		"proc", "product", "sdcard", "storage", "sys", "system", "system_ext", "vendor"},
	"/storage":          {"emulated", "self"},
	"/storage/emulated": {"0"},
	"/storage/self":     {"primary"},
	"/mnt":              {"sdcard"},
	"/system":           {"bin", "build.prop", "etc", "framework", "lib64", "priv-app", "xbin"},
	"/system/xbin":      nil,
	"/system/etc":       nil,
	"/system/framework": nil,
	"/system/lib64":     nil,
	"/system/priv-app":  nil,
	"/system_ext":       nil,
	"/vendor":           {"bin", "etc", "lib64"},
	"/vendor/bin":       nil,
	"/vendor/etc":       nil,
	"/vendor/lib64":     nil,
	"/product":          nil,
	"/odm":              nil,
	"/oem":              nil,
	"/apex":             nil,
	"/acct":             nil,
	"/cache":            nil,
	"/config":           nil,
	"/d":                nil,
	"/etc":              nil,
	"/dev":              {"null"},
}

// hasPrefixDir reports whether p is dir or lies under it.
func hasPrefixDir(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/") || dir == "/"
}

// Clean makes p absolute against cwd, removes dot segments and maps the
// shared-storage aliases onto their canonical directory.
func Clean(p, cwd string) string {
	if !strings.HasPrefix(p, "/") {
		if cwd == "" {
			cwd = "/"
		}
		p = cwd + "/" + p
	}
	p = path.Clean(p)
	for _, a := range storageAliases {
		if hasPrefixDir(p, a) {
			return StorageDir + p[len(a):]
		}
	}
	return p
}

// memNode is one file or directory of the writable tree.
type memNode struct {
	dir   bool
	mode  fs.FileMode // permission bits only
	mtime time.Time
	owner string
	data  []byte
}

// Tree is the writable tree, keyed by canonical path. Keeping it flat makes
// every operation a map look-up under one lock; listings scan, which is cheap
// at the sizes a test pushes.
type Tree struct {
	mu    sync.RWMutex
	nodes map[string]*memNode
}

// NewTree returns the writable tree of a freshly booted phone: /data,
// /data/local, /data/local/tmp and the shared storage's usual folders, made
// at now.
func NewTree(now time.Time) *Tree {
	m := &Tree{nodes: make(map[string]*memNode)}
	for _, d := range []string{"/data", "/data/local"} {
		m.nodes[d] = &memNode{dir: true, mode: 0o771, mtime: now, owner: "system"}
	}
	m.nodes[TmpDir] = &memNode{dir: true, mode: 0o771, mtime: now, owner: "shell"}
	m.nodes[StorageDir] = &memNode{dir: true, mode: 0o770, mtime: now, owner: "root"}
	for _, d := range []string{"Alarms", "Android", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications", "Pictures", "Podcasts", "Ringtones"} {
		m.nodes[StorageDir+"/"+d] = &memNode{dir: true, mode: 0o770, mtime: now, owner: "root"}
	}
	return m
}

// inMem reports whether canonical path p belongs to the writable tree.
func inMem(p string) bool { return hasPrefixDir(p, "/data") || hasPrefixDir(p, StorageDir) }

// inRendered reports whether canonical path p is rendered on every read.
func inRendered(p string) bool { return hasPrefixDir(p, "/proc") || hasPrefixDir(p, "/sys") }

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

// groupOf names the group ls shows for a writable-tree path.
func groupOf(p string) string {
	if hasPrefixDir(p, StorageDir) {
		return "everybody"
	}
	if hasPrefixDir(p, TmpDir) {
		return "shell"
	}
	return "system"
}

func (m *Tree) info(p string, n *memNode) *fileInfo {
	fi := &fileInfo{name: path.Base(p), size: int64(len(n.data)), mode: n.mode, mtime: n.mtime, owner: n.owner, group: groupOf(p)}
	if n.dir {
		fi.mode |= fs.ModeDir
		fi.size = 3452
	}
	return fi
}

// fsUser is who does a file operation: the shell user or root.
type fsUser struct{ root bool }

func (u fsUser) name() string {
	if u.root {
		return "root"
	}
	return "shell"
}

// mayWrite reports whether u may create or change canonical path p.
func (u fsUser) mayWrite(p string) error {
	if u.root && hasPrefixDir(p, "/data") {
		return nil
	}
	if hasPrefixDir(p, TmpDir) || hasPrefixDir(p, StorageDir) {
		return nil
	}
	for _, r := range readOnlyRoots {
		if hasPrefixDir(p, r) {
			return syscall.EROFS
		}
	}
	switch {
	case inRendered(p), inMem(p):
		return syscall.EACCES
	case p == "/", path.Dir(p) == "/":
		return syscall.EROFS
	}
	if _, ok := skeleton[path.Dir(p)]; ok {
		return syscall.EROFS
	}
	// The parent is not a directory of the device at all.
	return syscall.ENOENT
}

// mayRead applies the permission bits of a writable-tree file: the owner's
// when the shell user owns it, the group's for the shell group, else the
// others'.
func (u fsUser) mayRead(n *memNode, group string) bool {
	switch {
	case u.root:
		return true
	case n.owner == "shell":
		return n.mode&0o400 != 0
	case group == "shell":
		return n.mode&0o040 != 0
	}
	return n.mode&0o004 != 0
}

// mayList reports whether u may list the writable-tree directory p: the
// shell user cannot list /data or /data/local, as on a phone.
func (u fsUser) mayList(p string) error {
	if !u.root && (p == "/data" || p == "/data/local") {
		return syscall.EACCES
	}
	return nil
}

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

func (v *FS) user() fsUser { return fsUser{root: v.Root} }

// MayWrite reports why the user may not create or change canonical path p:
// an error satisfying errors.Is(err, syscall.EROFS) on a read-only
// partition, fs.ErrPermission elsewhere outside the writable tree, or nil.
func (v *FS) MayWrite(p string) error { return v.user().mayWrite(p) }

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
			if p == "/data" || !v.user().root && !hasPrefixDir(p, TmpDir) && !hasPrefixDir(p, StorageDir) && hasPrefixDir(p, "/data") {
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

// Mkdir makes directory p; with parents it makes missing parents and
// accepts an existing directory, as mkdir -p does.
func (v *FS) Mkdir(p string, parents bool, now time.Time) error {
	if fi, err := v.Stat(p); err == nil {
		if parents && fi.IsDir() {
			return nil
		}
		return pathErr("mkdir", p, fs.ErrExist)
	}
	if err := v.user().mayWrite(p); err != nil {
		return pathErr("mkdir", p, err)
	}
	v.Tree.mu.Lock()
	defer v.Tree.mu.Unlock()
	var missing []string
	for q := p; ; q = path.Dir(q) {
		n, ok := v.Tree.nodes[q]
		if ok {
			if !n.dir {
				return pathErr("mkdir", p, syscall.ENOTDIR)
			}
			break
		}
		if v.user().mayWrite(q) != nil {
			return pathErr("mkdir", p, fs.ErrNotExist)
		}
		missing = append(missing, q)
	}
	if len(missing) > 1 && !parents {
		return pathErr("mkdir", p, fs.ErrNotExist)
	}
	for _, q := range missing {
		v.Tree.nodes[q] = &memNode{dir: true, mode: 0o771, mtime: now, owner: v.user().name()}
	}
	return nil
}

// Remove deletes p; recursive removes a directory with its content.
func (v *FS) Remove(p string, recursive bool) error {
	if _, err := v.Stat(p); err != nil {
		return pathErr("remove", p, underlying(err))
	}
	if err := v.user().mayWrite(p); err != nil {
		return pathErr("remove", p, err)
	}
	if p == TmpDir || p == StorageDir {
		// The mount points themselves stay; rm -rf clears their content.
		if !recursive {
			return pathErr("remove", p, syscall.EISDIR)
		}
	}
	v.Tree.mu.Lock()
	defer v.Tree.mu.Unlock()
	n := v.Tree.nodes[p]
	if n == nil {
		return pathErr("remove", p, fs.ErrNotExist)
	}
	if n.dir && !recursive {
		return pathErr("remove", p, syscall.EISDIR)
	}
	for q := range v.Tree.nodes {
		if strings.HasPrefix(q, p+"/") {
			delete(v.Tree.nodes, q)
		}
	}
	if p != TmpDir && p != StorageDir && p != "/data" && p != "/data/local" {
		delete(v.Tree.nodes, p)
	}
	return nil
}

// Touch creates p empty when missing and sets its mtime.
func (v *FS) Touch(p string, mtime time.Time) error {
	v.Tree.mu.Lock()
	n, ok := v.Tree.nodes[p]
	if ok {
		n.mtime = mtime
	}
	v.Tree.mu.Unlock()
	if ok {
		return nil
	}
	if _, err := v.Stat(p); err == nil {
		if p == "/dev/null" {
			return nil
		}
		if err := v.user().mayWrite(p); err != nil {
			return pathErr("touch", p, err)
		}
		return nil
	}
	return v.WriteFile(p, nil, 0o666, mtime, false)
}

// WriteFile creates or replaces (or with appendData, extends) file p.
func (v *FS) WriteFile(p string, data []byte, mode fs.FileMode, mtime time.Time, appendData bool) error {
	if p == "/dev/null" {
		return nil
	}
	if err := v.user().mayWrite(p); err != nil {
		return pathErr("open", p, err)
	}
	v.Tree.mu.Lock()
	defer v.Tree.mu.Unlock()
	parent, ok := v.Tree.nodes[path.Dir(p)]
	if !ok {
		return pathErr("open", p, fs.ErrNotExist)
	}
	if !parent.dir {
		return pathErr("open", p, syscall.ENOTDIR)
	}
	n, ok := v.Tree.nodes[p]
	if ok && n.dir {
		return pathErr("open", p, syscall.EISDIR)
	}
	if !ok {
		n = &memNode{mode: mode.Perm(), owner: v.user().name()}
		v.Tree.nodes[p] = n
	}
	if appendData {
		n.data = append(n.data, data...)
	} else {
		n.data = bytes.Clone(data)
	}
	n.mtime = mtime
	return nil
}

// File is an open writable-tree file: reads see the content at open time;
// writes go straight into the tree so a later command in the same script
// sees them.
type File struct {
	v *FS
	p string
	r *bytes.Reader // nil: not open for reading
}

// OpenAppend opens the existing file p for appending, and with read for
// reading its present content too. The caller has created or truncated p
// (WriteFile) and checked that it may write it.
func (v *FS) OpenAppend(p string, read bool) *File {
	f := &File{v: v, p: p}
	if read {
		data, _ := v.ReadFile(p)
		f.r = bytes.NewReader(data)
	}
	return f
}

func (f *File) Read(b []byte) (int, error) {
	if f.r == nil {
		return 0, pathErr("read", f.p, syscall.EBADF)
	}
	return f.r.Read(b)
}

func (f *File) Write(b []byte) (int, error) {
	if err := f.v.WriteFile(f.p, b, 0o666, time.Now(), true); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Close does nothing: every write is in the tree already.
func (f *File) Close() error { return nil }

// Chmod changes the permission bits of a writable-tree path. mode is octal
// (644) or symbolic with one clause ([ugoa]*[+-=][rwx]*).
func (v *FS) Chmod(p, mode string) error {
	if _, err := v.Stat(p); err != nil {
		return err
	}
	if err := v.user().mayWrite(p); err != nil {
		return pathErr("chmod", p, err)
	}
	v.Tree.mu.Lock()
	defer v.Tree.mu.Unlock()
	n := v.Tree.nodes[p]
	if n == nil {
		return pathErr("chmod", p, fs.ErrNotExist)
	}
	m, err := applyMode(n.mode, mode)
	if err != nil {
		return pathErr("chmod", p, fs.ErrInvalid)
	}
	n.mode = m
	return nil
}

// applyMode computes chmod's result of mode on the bits old.
func applyMode(old fs.FileMode, mode string) (fs.FileMode, error) {
	if mode == "" {
		return 0, fs.ErrInvalid
	}
	if mode[0] >= '0' && mode[0] <= '7' {
		var m fs.FileMode
		for _, c := range mode {
			if c < '0' || c > '7' || m > 0o777 {
				return 0, fs.ErrInvalid
			}
			m = m<<3 | fs.FileMode(c-'0')
		}
		return m & 0o777, nil
	}
	i := 0
	var who fs.FileMode
	for i < len(mode) && strings.ContainsRune("ugoa", rune(mode[i])) {
		switch mode[i] {
		case 'u':
			who |= 0o700
		case 'g':
			who |= 0o070
		case 'o':
			who |= 0o007
		case 'a':
			who |= 0o777
		}
		i++
	}
	if who == 0 {
		who = 0o777
	}
	if i >= len(mode) || !strings.ContainsRune("+-=", rune(mode[i])) {
		return 0, fs.ErrInvalid
	}
	op := mode[i]
	var bits fs.FileMode
	for _, c := range mode[i+1:] {
		switch c {
		case 'r':
			bits |= 0o444
		case 'w':
			bits |= 0o222
		case 'x':
			bits |= 0o111
		default:
			return 0, fs.ErrInvalid
		}
	}
	bits &= who
	switch op {
	case '+':
		return old | bits, nil
	case '-':
		return old &^ bits, nil
	}
	return old&^who | bits, nil
}
