package vfs

import (
	"path"
	"syscall"
)

// readOnlyRoots are mounted read-only on a production build.
var readOnlyRoots = []string{"/system", "/system_ext", "/vendor", "/product", "/odm", "/apex", "/oem"}

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
	if shellWritable(p) {
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
// shell user cannot list /data, /data/local or /data/misc, as on a phone.
func (u fsUser) mayList(p string) error {
	if !u.root && (p == "/data" || p == "/data/local" || p == "/data/misc") {
		return syscall.EACCES
	}
	return nil
}

func (v *FS) user() fsUser { return fsUser{root: v.Root} }

// MayWrite reports why the user may not create or change canonical path p:
// an error satisfying errors.Is(err, syscall.EROFS) on a read-only
// partition, fs.ErrPermission elsewhere outside the writable tree, or nil.
func (v *FS) MayWrite(p string) error { return v.user().mayWrite(p) }
