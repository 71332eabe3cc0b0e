package vfs

import (
	"path"
	"strings"
)

// Canonical roots of the writable tree.
const (
	TmpDir     = "/data/local/tmp"
	StorageDir = "/storage/emulated/0"
	// PerfettoDir is where perfetto writes traces; the shell user may
	// create files in it (drwxrwx-wx root shell on a phone).
	PerfettoDir = "/data/misc/perfetto-traces"
)

// shellWritable reports whether canonical path p lies in a part of the
// writable tree the shell user may write.
func shellWritable(p string) bool {
	return hasPrefixDir(p, TmpDir) || hasPrefixDir(p, StorageDir) || hasPrefixDir(p, PerfettoDir)
}

// storageAliases are the names a phone gives its primary shared storage.
var storageAliases = []string{"/sdcard", "/storage/self/primary", "/mnt/sdcard"}

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

// inMem reports whether canonical path p belongs to the writable tree.
func inMem(p string) bool { return hasPrefixDir(p, "/data") || hasPrefixDir(p, StorageDir) }

// inRendered reports whether canonical path p is rendered on every read.
func inRendered(p string) bool { return hasPrefixDir(p, "/proc") || hasPrefixDir(p, "/sys") }

// groupOf names the group ls shows for a writable-tree path.
func groupOf(p string) string {
	if hasPrefixDir(p, StorageDir) {
		return "everybody"
	}
	if hasPrefixDir(p, TmpDir) || hasPrefixDir(p, PerfettoDir) {
		return "shell"
	}
	return "system"
}
