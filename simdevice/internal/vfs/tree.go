package vfs

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"
)

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
// /data/local, /data/local/tmp, /data/misc/perfetto-traces and the shared
// storage's usual folders, made at now.
func NewTree(now time.Time) *Tree {
	m := &Tree{nodes: make(map[string]*memNode)}
	for _, d := range []string{"/data", "/data/local"} {
		m.nodes[d] = &memNode{dir: true, mode: 0o771, mtime: now, owner: "system"}
	}
	m.nodes[TmpDir] = &memNode{dir: true, mode: 0o771, mtime: now, owner: "shell"}
	m.nodes["/data/misc"] = &memNode{dir: true, mode: 0o771, mtime: now, owner: "system"}
	m.nodes[PerfettoDir] = &memNode{dir: true, mode: 0o773, mtime: now, owner: "root"}
	m.nodes[StorageDir] = &memNode{dir: true, mode: 0o770, mtime: now, owner: "root"}
	for _, d := range []string{"Alarms", "Android", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications", "Pictures", "Podcasts", "Ringtones"} {
		m.nodes[StorageDir+"/"+d] = &memNode{dir: true, mode: 0o770, mtime: now, owner: "root"}
	}
	return m
}

func (m *Tree) info(p string, n *memNode) *fileInfo {
	fi := &fileInfo{name: path.Base(p), size: int64(len(n.data)), mode: n.mode, mtime: n.mtime, owner: n.owner, group: groupOf(p)}
	if n.dir {
		fi.mode |= fs.ModeDir
		fi.size = 3452
	}
	return fi
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
	if p == TmpDir || p == StorageDir || p == PerfettoDir {
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
	if p != TmpDir && p != StorageDir && p != PerfettoDir && p != "/data" && p != "/data/local" && p != "/data/misc" {
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
