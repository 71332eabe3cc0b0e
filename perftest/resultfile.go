package perftest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/internal/filelock"
)

// processStart is when this process began: a Result file written since
// then is this run's (or a concurrent run's), never an earlier run's.
var processStart = time.Now()

// mtimeSlack covers file systems that keep modification times in whole
// seconds (or two): a file written that close to the start of this process
// counts as written during it.
const mtimeSlack = 2 * time.Second

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

// resultBase is the file name, without ".json", of the Result of a session
// named name in a results folder: the name made safe for a file name, then
// "@" and the test's package when a test binary runs it:
// "TestFeed_scroll@example_test".
func resultBase(name string) string {
	base := strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
	if base == "" {
		base = "perftest"
	}
	if pkg := TestPackage(); pkg != "" {
		base += "@" + strings.ReplaceAll(pkg, "/", ".")
	}
	return base
}

// resultsLock is the lock file that serialises choosing names in a results
// folder; it is gone again when no Result is being written.
const resultsLock = ".perfgate.lock"

// WriteInDir writes r into dir as base.json, or base.2.json, base.3.json, …
// when that name is taken, and records the path in r.Path. A name is taken
// by a file of a run still going on (this process's own, as under
// go test -count=2, or another's running at the same time), which is one
// written since this process started or one its process still holds open
// (a shared advisory lock, on systems that have them). A file an earlier
// run left is replaced, so running a test again does not fill the folder.
// Choosing the name and renaming the file into place happen under a lock
// file in dir (waited for at most $PERFGATE_LOCK_TIMEOUT, default 30s),
// so runs writing at once never overwrite each other. Links are never
// written through: a name held by anything but a regular file is taken.
func (r *Result) WriteInDir(dir, base string) error {
	if base == "" || strings.ContainsAny(base, `/\`) || base != filepath.Base(base) {
		return fmt.Errorf("perftest: write result in %s: bad file name %q", dir, base)
	}
	fail := func(err error) error {
		return fmt.Errorf("perftest: write result %s in %s: %w", base+".json", dir, err)
	}
	if r.Schema == "" {
		r.Schema = Schema
	}
	b, err := json.MarshalIndent(r, "", "  ")
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
	if err := errors.Join(werr, tmp.Close(), os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	p, err := claim(dir, base, ".json", tmp.Name())
	if err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	r.Path = p
	return nil
}

// claim renames the written file tmp to the first free name of base in
// dir with extension ext (base.ext, base.2.ext, …), under the folder's
// lock, and returns it.
func claim(dir, base, ext, tmp string) (string, error) {
	timeout, err := filelock.Timeout()
	if err != nil {
		return "", err
	}
	unlock, err := filelock.Lock(filepath.Join(dir, resultsLock), timeout)
	if err != nil {
		return "", err
	}
	defer unlock()
	for n := 1; n <= 10000; n++ {
		name := base + ext
		if n > 1 {
			name = base + "." + strconv.Itoa(n) + ext
		}
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return "", err
		case !fi.Mode().IsRegular() || !fi.ModTime().Before(processStart.Add(-mtimeSlack)) || filelock.Held(p):
			continue // this run's, a concurrent run's, or not a plain file
		}
		if err := os.Rename(tmp, p); err != nil {
			return "", err
		}
		hold(p)
		return p, nil
	}
	return "", errors.New("10000 names taken")
}

// held are the Result files this process wrote, each kept open with a
// shared lock so that a run going on at the same time never takes the file
// for an earlier run's (see WriteInDir); at most maxHeld of them.
var held struct {
	sync.Mutex
	n int
}

const maxHeld = 2000

func hold(p string) {
	held.Lock()
	defer held.Unlock()
	if held.n >= maxHeld {
		return
	}
	if _, err := filelock.Hold(p); err == nil {
		held.n++
	}
}

// partial says where the partial Result of a session that ended early
// went, for its failure message.
func partial(r *Result) string {
	if r.Path == "" {
		return "the partial result was not written"
	}
	return "partial result in " + r.Path
}
