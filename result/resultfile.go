package result

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/internal/filename"
)

// TestPackage names the Go package whose test binary is running, as a path
// inside its module ("example_test", "cmd/perfgate"; the module's last
// element for its root package), or "" outside a test binary. Result files
// carry it in their names, so same-named tests of two packages writing into
// one $PERFGATE_RESULTS never share a file.
func TestPackage() string {
	testPackage.once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		testPackage.name = packageInModule(bi.Path, bi.Main.Path)
	})
	return testPackage.name
}

var testPackage struct {
	once sync.Once
	name string
}

// packageInModule is the test binary path's package ("m/a/b.test") inside
// the module m ("a/b").
func packageInModule(binary, module string) string {
	pkg, ok := strings.CutSuffix(binary, ".test")
	if !ok {
		return ""
	}
	if pkg == module || module == "" {
		return pkg[strings.LastIndexByte(pkg, '/')+1:]
	}
	if rel, ok := strings.CutPrefix(pkg, module+"/"); ok {
		return rel
	}
	return pkg
}

// Base is the file name, without ".json", of the Result of a session
// named name in a results folder: the name made a file name (filename.Of), then
// "@" and the test's package when a test binary runs it:
// "TestFeed_scroll@example_test".
func Base(name string) string {
	base := cmp.Or(filename.Of(name), "perftest")
	if pkg := TestPackage(); pkg != "" {
		base += "@" + strings.ReplaceAll(pkg, "/", ".")
	}
	return base
}

// LockFile is the lock file that serialises choosing names in a results
// folder; it is gone again when no Result is being written.
const LockFile = ".perfgate.lock"

// WriteInDir writes r into dir as base.json, or base.2.json, base.3.json, …
// when that name is taken, and records the path in r.Path.
//
// Names go by stem, the name without its extension: a session's Result
// and the files it links (its folded stacks and Perfetto trace) share one
// (base.3.json, base.3.folded, base.3.perfetto-trace), so a Result's links
// always name its own files however many sessions of one name write into
// the folder at once. A stem is free when each of those names is: nothing
// is there, or the file there is an earlier run's of that kind (for a
// Result: a regular file, never a link, whose JSON starts with perfgate's
// schema, "perfgate.result/v1") that no running process holds and that
// this process did not write. Every process holds the files it writes (a
// shared advisory lock, on systems that have them, for its first 2000
// files), so a run going on at the same time keeps its files, and it
// remembers them, so a second session of one name in a run (go test
// -count=2) gets base.2.json. Any other file, such as a scenario named
// base.json in a folder used as results folder, is never replaced or
// removed: the Result goes to the next stem.
//
// A later run replaces an earlier run's files, all of them: the first time
// a process writes a file of base into dir, it removes every earlier run's
// Result of base there (base.json and base.N.json, by the rule above)
// with the files that Result names beside it (its folded stacks and
// Perfetto trace) and its reports (<its name>.html and .md, when they start
// as perfgate's reports do); the earlier run's files under the stem it
// takes go too. Running a test again thus leaves one set of files, never a
// stale base.2.json that reads as a run of today.
//
// Choosing the stem, removing and renaming into place happen under a lock
// file in dir (waited for at most $PERFGATE_LOCK_TIMEOUT, default 30s), so
// runs writing at once never overwrite each other. Where the system has no
// advisory locks (Windows), a run that has ended and one going on at the
// same time in another process look alike: its files may be replaced.
func (r *Result) WriteInDir(dir, base string) error { return r.WriteInStem(dir, base, nil) }

// WriteInStem is WriteInDir under the stem st, which the files r links
// share (nil: a stem of its own).
func (r *Result) WriteInStem(dir, base string, st *Stem) error {
	if base == "" || strings.ContainsAny(base, `/\`) || base != filepath.Base(base) {
		return fmt.Errorf("result: write result in %s: bad file name %q", dir, base)
	}
	fail := func(err error) error {
		return fmt.Errorf("result: write result %s in %s: %w", base+".json", dir, err)
	}
	if r.Schema == "" {
		r.Schema = Schema
	}
	b, err := r.marshal()
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*")
	if err != nil {
		return fail(err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Sync(), tmp.Close(), os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	p, err := st.Claim(dir, base, ".json", tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	r.Path = p
	return nil
}

// Rewrite writes r again over its file r.Path, as when verdicts are added
// to a Result after its session stopped. The file is replaced whole (a
// temporary file renamed over it), so a reader never sees half of it; its
// name stays, and it stays this process's, held and remembered as
// WriteInDir's files are, so no run going on at the same time takes it
// for an earlier run's. r.Path must name a regular file.
func (r *Result) Rewrite() error {
	if r.Path == "" {
		return errors.New("result: rewrite result: it has no file (Path is empty)")
	}
	fail := func(err error) error { return fmt.Errorf("result: rewrite result %s: %w", r.Path, err) }
	fi, err := os.Lstat(r.Path)
	if err != nil {
		return fail(err)
	}
	if !fi.Mode().IsRegular() {
		return fail(fmt.Errorf("not a regular file (%v)", fi.Mode().Type()))
	}
	if r.Schema == "" {
		r.Schema = Schema
	}
	b, err := r.marshal()
	if err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(r.Path), "."+filepath.Base(r.Path)+".*")
	if err != nil {
		return fail(err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Sync(), tmp.Close(), os.Chmod(tmp.Name(), fi.Mode().Perm())); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	if err := keep(tmp.Name(), r.Path); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	return nil
}

// stemKinds are the extensions of the files named after a stem: a Result
// and the files it links.
var stemKinds = []string{".json", ".folded", ".perfetto-trace", ".heap-first.hprof", ".heap-last.hprof"}

// StemFree reports whether no file that a session names after stem is
// there: stem.json, and the files a Result links, stem.folded and
// stem.perfetto-trace.
func StemFree(stem string) bool {
	for _, ext := range stemKinds {
		if _, err := os.Lstat(stem + ext); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// A stem is the name, without its extension, that a session's files share
// in its results folder: "TestFeed@pkg.3" for TestFeed@pkg.3.json, .folded
// and .perfetto-trace. The first of them claimed chooses it, and the
// others follow it, whatever order the session writes them in; a stem
// with a fixed name (a session's Config.ResultFile) chooses nothing. A
// nil *stem is a fresh one.
type Stem struct {
	mu   sync.Mutex
	dir  string // the folder it was chosen in
	name string // "" until chosen
}

// FixedStem is the stem of a Result written at the path file, its name
// the file's without ".json".
func FixedStem(file string) *Stem {
	return &Stem{dir: filepath.Dir(file), name: strings.TrimSuffix(filepath.Base(file), ".json")}
}

// claim renames the written file tmp to base's first free name in dir with
// extension ext (base.ext, base.2.ext, …), under the folder's lock, and
// returns it; the file is then this process's (see keep). It is the claim
// of a fresh stem: a file no other goes with.
func Claim(dir, base, ext, tmp string) (string, error) {
	return (*Stem)(nil).Claim(dir, base, ext, tmp)
}

// claim renames the written file tmp to the stem's name with extension ext
// in dir, under the folder's lock, and returns it; the file is then this
// process's (see keep). The first claim of an unchosen stem chooses it
// (freeStem): a stem under which every kind of file is free, so that no
// file of another Result shares it. The first claim of base in dir by
// this process first removes every earlier run's Result of base there
// (sweep).
//
// Once chosen, the stem's name for ext is the stem's own: nothing there,
// or the stem's own file written again, or an earlier run's file of that
// kind (which goes, with what an earlier Result names); any other file
// there is an error, and stays.
func (st *Stem) Claim(dir, base, ext, tmp string) (string, error) {
	if st == nil {
		st = &Stem{}
	}
	timeout, err := filelock.Timeout()
	if err != nil {
		return "", err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.name != "" && !sameFolder(dir, st.dir) {
		return "", fmt.Errorf("the session's files are in %s, not %s", st.dir, dir)
	}
	unlock, err := filelock.Lock(filepath.Join(dir, LockFile), timeout)
	if err != nil {
		return "", err
	}
	defer unlock()
	if st.name == "" {
		if firstClaim(dir, base) {
			sweep(dir, base)
		}
		name, err := freeStem(dir, base)
		if err != nil {
			return "", err
		}
		st.dir, st.name = dir, name
	}
	p := filepath.Join(dir, st.name+ext)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	case fi.Mode().IsRegular() && wroteFile(p):
		// The stem's own file, written again.
	case !earlier(p, fi, ext):
		return "", fmt.Errorf("%s is taken by a file that is not this run's (not replaced)", p)
	case ext == ".json":
		removeAll(companions(p, base))
	}
	if err := keep(tmp, p); err != nil {
		return "", err
	}
	return p, nil
}

// freeStem is the first of base, base.2, base.3, … under which every kind
// of file (stemKinds) is free: nothing there, or an earlier run's file of
// that kind, which it removes, with what an earlier Result there names.
func freeStem(dir, base string) (string, error) {
next:
	for n := 1; n <= 10000; n++ {
		name := numberedName(base, n, "")
		var old []string
		for _, ext := range stemKinds {
			p := filepath.Join(dir, name+ext)
			fi, err := os.Lstat(p)
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return "", err
			case !earlier(p, fi, ext):
				continue next // this run's, a concurrent run's, or not perfgate's
			default:
				old = append(old, p)
			}
		}
		for _, p := range old {
			if strings.HasSuffix(p, ".json") {
				removeAll(companions(p, base))
			}
		}
		removeAll(old)
		return name, nil
	}
	return "", errors.New("10000 names taken")
}

// numberedName is the n-th name of base with extension ext: base.ext,
// then base.2.ext, base.3.ext, ….
func numberedName(base string, n int, ext string) string {
	if n == 1 {
		return base + ext
	}
	return base + "." + strconv.Itoa(n) + ext
}

// isNumberedName reports whether name is one of numberedName's names of
// base with extension ext.
func isNumberedName(name, base, ext string) bool {
	if name == base+ext {
		return true
	}
	rest, ok := strings.CutPrefix(name, base+".")
	if !ok {
		return false
	}
	num, ok := strings.CutSuffix(rest, ext)
	if !ok || num == "" || num[0] == '0' || strings.Trim(num, "0123456789") != "" {
		return false
	}
	n, err := strconv.Atoi(num)
	return err == nil && n >= 2
}

// ownFiles is what this process knows of the files it wrote into results
// folders.
var ownFiles struct {
	sync.Mutex
	// wrote holds each of them (Results, folded stacks, traces) by
	// absolute path: this run's, never an earlier run's, even where no
	// lock tells (systems without advisory locks, files past maxHeld).
	wrote map[string]bool
	// held releases the shared lock on each file that marks it, to other
	// processes, as a running process's; at most maxHeld of them, as each
	// keeps a file open.
	held map[string]func()
	// swept holds the folders and bases already cleared of earlier runs'
	// files (sweep), by absolute folder and base.
	swept map[string]bool
}

// maxHeld bounds the files a process holds open: past it, its files are
// still its own to it, but no lock tells other processes so.
const maxHeld = 2000

// absPath is p made absolute, as the registry of this process's files
// knows it; p as given when the working directory is unknown.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// wroteFile reports whether this process wrote the file p.
func wroteFile(p string) bool {
	ownFiles.Lock()
	defer ownFiles.Unlock()
	return ownFiles.wrote[absPath(p)]
}

// firstClaim reports whether this is the process's first claim of base in
// dir, and records it.
func firstClaim(dir, base string) bool {
	k := absPath(dir) + "\x00" + base
	ownFiles.Lock()
	defer ownFiles.Unlock()
	if ownFiles.swept[k] {
		return false
	}
	if ownFiles.swept == nil {
		ownFiles.swept = map[string]bool{}
	}
	ownFiles.swept[k] = true
	return true
}

// keep renames the written file tmp to p and makes p this process's:
// remembered, and held. The lock is taken on tmp before the rename, so the
// name is never without one, and the lock on the file p replaced, if this
// process held it, is released: it marks a file no longer there.
func keep(tmp, p string) error {
	k := absPath(p)
	ownFiles.Lock()
	defer ownFiles.Unlock()
	var release func()
	if _, ok := ownFiles.held[k]; ok || len(ownFiles.held) < maxHeld {
		release, _ = filelock.Hold(tmp)
	}
	if err := os.Rename(tmp, p); err != nil {
		if release != nil {
			release()
		}
		return err
	}
	if ownFiles.wrote == nil {
		ownFiles.wrote, ownFiles.held = map[string]bool{}, map[string]func(){}
	}
	ownFiles.wrote[k] = true
	if old := ownFiles.held[k]; old != nil {
		old()
	}
	if release != nil {
		ownFiles.held[k] = release
	} else {
		delete(ownFiles.held, k)
	}
	return nil
}

// sweep removes the earlier runs' Results of base from dir (base.json and
// base.N.json that earlier allows), each after the files it names. What
// cannot be read or removed is left: the new file's name does not depend
// on it.
func sweep(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !isNumberedName(e.Name(), base, ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Lstat(p); err == nil && earlier(p, fi, ".json") {
			removeAll(append(companions(p, base), p))
		}
	}
}

// earlier reports whether the file p (fi its Lstat) is an earlier run's
// file of the kind its extension ext names, one a later run may replace: a
// regular file that no running process holds, that this process did not
// write, and that starts as perfgate's files of that kind do. Only
// Results, folded stacks, Perfetto traces and heap dumps qualify, the kinds perfgate
// names after a test; a link, or a file perfgate cannot tell for its own,
// never does.
func earlier(p string, fi fs.FileInfo, ext string) bool {
	if !fi.Mode().IsRegular() || wroteFile(p) || filelock.Held(p) {
		return false
	}
	var n int
	var is func(b []byte, whole bool) bool
	switch ext {
	case ".json":
		n, is = 4096, isResultStart
	case ".folded":
		n, is = 4096, isFoldedStart
	case ".perfetto-trace":
		n, is = 16, isTraceStart
	case ".heap-first.hprof", ".heap-last.hprof":
		n, is = 13, func(b []byte, _ bool) bool { return string(b) == "JAVA PROFILE " }
	default:
		return false
	}
	b, whole, err := head(p, n)
	return err == nil && is(b, whole)
}

// removeAll removes those of files that are regular, held by no running
// process and not this process's own. A file that cannot be removed stays.
func removeAll(files []string) {
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil || !fi.Mode().IsRegular() || wroteFile(f) || filelock.Held(f) {
			continue
		}
		os.Remove(f)
	}
}

// companions are the files beside the Result p that its run wrote with it:
// the folded stacks and the Perfetto trace it names (Causes.StacksFile,
// Trace.File), when they are in p's folder under a name perfgate gives
// them for base, and its reports, <stem>.html and <stem>.md for
// <stem>.json, when they start as perfgate's reports do.
func companions(p, base string) []string {
	dir := filepath.Dir(p)
	var files []string
	if m, err := readResultMembers(p, "causes", "trace"); err == nil {
		var causes struct {
			StacksFile string `json:"stacks_file"`
		}
		var trace struct {
			File string `json:"file"`
		}
		if json.Unmarshal(m["causes"], &causes) == nil {
			if f, ok := beside(dir, base, causes.StacksFile, ".folded"); ok {
				files = append(files, f)
			}
		}
		if json.Unmarshal(m["trace"], &trace) == nil {
			if f, ok := beside(dir, base, trace.File, ".perfetto-trace"); ok {
				files = append(files, f)
			}
		}
	}
	stem := strings.TrimSuffix(filepath.Base(p), ".json")
	for _, rep := range []struct {
		ext string
		is  func(b []byte, stem string) bool
	}{{".html", isHTMLReport}, {".md", isMarkdownReport}} {
		f := filepath.Join(dir, stem+rep.ext)
		if b, _, err := head(f, reportHead); err == nil && rep.is(b, stem) {
			files = append(files, f)
		}
	}
	return files
}

// beside is the file a Result in dir names as name (a path, or a bare name
// for one beside it), when that is in dir and named as perfgate names
// such files of base: base.ext or base.N.ext.
func beside(dir, base, name, ext string) (string, bool) {
	if name == "" || !isNumberedName(filepath.Base(name), base, ext) {
		return "", false
	}
	if d := filepath.Dir(name); d != "." && !sameFolder(d, dir) {
		return "", false
	}
	return filepath.Join(dir, filepath.Base(name)), true
}

// sameFolder reports whether a and b name one folder.
func sameFolder(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// reportHead is how much of a report is read to tell it for perfgate's.
const reportHead = 64 << 10

// isHTMLReport reports whether b starts as package report's HTML reports
// do: the page head, then, past the title and styles, the line the
// report's body opens with. Package report cannot be imported here (it
// imports this package); TestReportMarkers checks its source still writes
// these.
func isHTMLReport(b []byte, _ string) bool {
	return bytes.HasPrefix(b, []byte("<!doctype html>\n")) &&
		bytes.Contains(b, []byte("Every number follows perfgate's metric definitions"))
}

// isMarkdownReport reports whether b starts as the Markdown report that
// package report writes beside <stem>.json does: a "## " title line, then
// the link to the HTML report <stem>.html beside it.
func isMarkdownReport(b []byte, stem string) bool {
	return bytes.HasPrefix(b, []byte("## ")) &&
		bytes.Contains(b, []byte("\n\nCharts and every metric: [HTML report]("+stem+".html)\n"))
}

// isResultStart reports whether b, the start of a file, starts a Result:
// a JSON object whose first member is "schema" with the value Schema, as
// MarshalIndent writes a Result (Schema is its first field).
func isResultStart(b []byte, _ bool) bool {
	_, err := scanResult(bytes.NewReader(b))
	return err == nil
}

// isFoldedStart reports whether b, the start of a file (all of it when
// whole), is folded stacks as writeStacks writes them: lines of a stack,
// a space and a count, each ending in a newline.
func isFoldedStart(b []byte, whole bool) bool {
	lines := strings.Split(string(b), "\n")
	if last := lines[len(lines)-1]; whole && last != "" {
		return false
	}
	lines = lines[:len(lines)-1] // the rest of a line the read cut
	if len(lines) == 0 {
		return false
	}
	for _, l := range lines {
		stack, count, ok := cutLast(l, ' ')
		if !ok || stack == "" || count == "" || strings.Trim(count, "0123456789") != "" || !utf8.ValidString(l) {
			return false
		}
	}
	return true
}

// cutLast cuts s around its last sep.
func cutLast(s string, sep byte) (before, after string, found bool) {
	if i := strings.LastIndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// isTraceStart reports whether b, the start of a file (all of it when
// whole), starts a Perfetto trace: a Trace message, whose first field on
// the wire is a packet (field 1, length-delimited) with a length that fits.
func isTraceStart(b []byte, whole bool) bool {
	if len(b) < 2 || b[0] != 0x0a {
		return false
	}
	size, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return false
	}
	return !whole || size <= uint64(len(b)-1-n)
}

// head reads at most n bytes from the start of the regular file p, never
// through a link; whole says they are all of it.
func head(p string, n int) (b []byte, whole bool, err error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b = make([]byte, n+1)
	k, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	if k > n {
		return b[:n], false, nil
	}
	return b[:k], true, nil
}

// openRegular opens p for reading when it is a regular file, never
// following a link: the file opened must be the one Lstat saw.
func openRegular(p string) (*os.File, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v)", p, fi.Mode().Type())
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, fmt.Errorf("%s: replaced while being opened", p)
	}
	return f, nil
}

// readResultMembers reads the Result file p through (see scanResult) for
// the members named in keep.
func readResultMembers(p string, keep ...string) (map[string]json.RawMessage, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := scanResult(f, keep...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return m, nil
}

// errNotResult is scanResult's error for JSON that does not start as a
// Result does, or is not JSON.
var errNotResult = errors.New("not a perfgate Result")

// maxMember bounds a member scanResult keeps: a Result's causes and trace
// are a few KiB, its frames and samples, never kept, up to gigabytes.
const maxMember = 1 << 20

// scanResult reads the JSON object of a Result from r a member at a time,
// so that a Result of any size costs little memory: it fails unless the
// first member is "schema" with the value Schema (MarshalIndent writes
// Result's fields in order, Schema first), and returns the members named
// in keep, each at most maxMember bytes, reading past the others. With no
// keep it stops after the schema, so the start of a file is enough.
func scanResult(r io.Reader, keep ...string) (map[string]json.RawMessage, error) {
	s := &jsonScan{r: bufio.NewReaderSize(r, 64<<10)}
	if c, err := s.next(); err != nil || c != '{' {
		return nil, errNotResult
	}
	members := map[string]json.RawMessage{}
	for i := 0; ; i++ {
		if i > 0 {
			c, err := s.next()
			if err != nil || c != ',' && c != '}' {
				return nil, errNotResult
			}
			if c == '}' {
				return members, nil
			}
		}
		k, err := s.value(true)
		var key string
		if err != nil || json.Unmarshal(k, &key) != nil {
			return nil, errNotResult
		}
		if c, err := s.next(); err != nil || c != ':' {
			return nil, errNotResult
		}
		if i == 0 && key != "schema" {
			return nil, errNotResult
		}
		want := i == 0 || slices.Contains(keep, key)
		v, err := s.value(want)
		if err != nil {
			return nil, errNotResult
		}
		if i == 0 {
			var schema string
			if json.Unmarshal(v, &schema) != nil || schema != Schema {
				return nil, errNotResult
			}
			if len(keep) == 0 {
				return members, nil
			}
		} else if want && members[key] == nil {
			members[key] = bytes.Clone(v)
		}
	}
}

// jsonScan reads JSON values byte by byte, keeping their text only when
// asked to.
type jsonScan struct {
	r    *bufio.Reader
	buf  []byte
	keep bool
	over bool
}

// next returns the next byte that is not JSON white space.
func (s *jsonScan) next() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, err
		}
	}
}

// value reads the next JSON value, returning its text when keep (an error
// past maxMember bytes). It follows strings and nesting only, leaving the
// rest of the checking to whoever decodes what it keeps.
func (s *jsonScan) value(keep bool) ([]byte, error) {
	s.buf, s.keep, s.over = s.buf[:0], keep, false
	c, err := s.next()
	if err != nil {
		return nil, err
	}
	s.put(c)
	switch c {
	case '"':
		err = s.str()
	case '{', '[':
		for depth := 1; depth > 0 && err == nil; {
			if c, err = s.until(`"{}[]`); err != nil {
				break
			}
			switch c {
			case '"':
				err = s.str()
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	default:
		for {
			b, perr := s.r.Peek(1)
			if perr != nil {
				err = perr
				break
			}
			if strings.IndexByte(",}] \t\r\n", b[0]) >= 0 {
				break
			}
			s.r.ReadByte()
			s.put(b[0])
		}
	}
	if err == nil && s.over {
		err = fmt.Errorf("a value longer than %d bytes", maxMember)
	}
	return s.buf, err
}

// str reads the rest of a string whose opening quote was read.
func (s *jsonScan) str() error {
	for {
		c, err := s.until(`"\`)
		if err != nil || c == '"' {
			return err
		}
		if c, err = s.r.ReadByte(); err != nil { // the escaped byte
			return err
		}
		s.put(c)
	}
}

// until reads up to and including the next of the bytes in set, and
// returns it. Skipping, it searches what is buffered rather than taking a
// byte at a time: most of a Result is skipped.
func (s *jsonScan) until(set string) (byte, error) {
	if s.keep {
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				return 0, err
			}
			s.put(c)
			if strings.IndexByte(set, c) >= 0 {
				return c, nil
			}
		}
	}
	for {
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); err != nil {
				return 0, err
			}
		}
		chunk, _ := s.r.Peek(s.r.Buffered())
		if i := bytes.IndexAny(chunk, set); i >= 0 {
			c := chunk[i]
			s.r.Discard(i + 1)
			return c, nil
		}
		s.r.Discard(len(chunk))
	}
}

// put keeps c when the value is being kept.
func (s *jsonScan) put(c byte) {
	switch {
	case !s.keep || s.over:
	case len(s.buf) >= maxMember:
		s.over = true
	default:
		s.buf = append(s.buf, c)
	}
}
