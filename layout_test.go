package perfgate_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// module is the module's import path.
const module = "github.com/perfgate/perfgate"

// goPackage is a package of the module as go list describes it.
type goPackage struct {
	dir     string   // relative to the module root: "metrics", "." for the root
	imports []string // the module's packages it imports (non-test files), relative
	deps    []string // every module package it depends on, transitively
	files   []string // its non-test Go files, absolute
}

// listPackages runs go list over the module.
func listPackages(t *testing.T) map[string]*goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}|{{.Dir}}|{{join .GoFiles " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	own := func(ps string) []string {
		var out []string
		for _, p := range strings.Fields(ps) {
			if r, ok := rel(p); ok {
				out = append(out, r)
			}
		}
		return out
	}
	pkgs := map[string]*goPackage{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		if len(f) != 5 {
			t.Fatalf("go list line %q", sc.Text())
		}
		dir, _ := rel(f[0])
		p := &goPackage{dir: dir, imports: own(f[1]), deps: own(f[2])}
		for _, g := range strings.Fields(f[4]) {
			p.files = append(p.files, filepath.Join(f[3], g))
		}
		pkgs[dir] = p
	}
	return pkgs
}

// layoutRow is a row of the README's layout table.
type layoutRow struct {
	folders []string // the packages it names in its first column
	imports []string // what its last column allows; nil with all set for "all"
	all     bool
	text    string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readmeLayout reads the table under the README's "## Layout".
func readmeLayout(t *testing.T) []layoutRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []layoutRow
	for _, ln := range strings.Split(section, "\n") {
		if !strings.HasPrefix(ln, "| ") || strings.HasPrefix(ln, "| folder ") {
			continue
		}
		cells := strings.Split(strings.Trim(ln, "| "), " | ")
		if len(cells) != 3 {
			t.Errorf("README layout row of %d cells, want 3: %s", len(cells), ln)
			continue
		}
		row := layoutRow{text: ln}
		if strings.Contains(cells[0], "readme_test.go") {
			row.folders = append(row.folders, ".")
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			if !strings.HasSuffix(m[1], ".go") {
				row.folders = append(row.folders, strings.TrimSuffix(m[1], "/"))
			}
		}
		switch last := strings.TrimSpace(cells[2]); {
		case last == "all":
			row.all = true
		case last == "none":
		default:
			for _, m := range backticked.FindAllStringSubmatch(last, -1) {
				row.imports = append(row.imports, m[1])
			}
			if len(row.imports) == 0 {
				t.Errorf("README layout row allows neither packages nor none nor all: %s", ln)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) < 10 {
		t.Fatalf("README layout table has %d rows", len(rows))
	}
	return rows
}

// rowOf is the index of the row a package belongs to: the row naming the
// longest folder that is the package or holds it.
func rowOf(rows []layoutRow, dir string) int {
	best, bestLen := -1, -1
	for i, r := range rows {
		for _, f := range r.folders {
			if (dir == f || f != "." && strings.HasPrefix(dir, f+"/")) && len(f) > bestLen {
				best, bestLen = i, len(f)
			}
		}
	}
	return best
}

// allows reports whether an entry of a row's imports column names pkg:
// the package itself, its last elements ("excerpt" for internal/excerpt),
// or a folder ending in "…" holding it.
func allows(entry, pkg string) bool {
	entry = strings.TrimSuffix(entry, " only")
	if pre, ok := strings.CutSuffix(entry, "…"); ok {
		return strings.HasPrefix(pkg, pre)
	}
	return pkg == entry || strings.HasSuffix(pkg, "/"+entry)
}

// The README's layout table is the layout: every package of the module has
// its row, and imports only packages of the rows above its own, or of its
// own row, and only those its row's last column names.
func TestLayoutMatchesREADME(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	rows := readmeLayout(t)
	for _, dir := range sortedKeys(pkgs) {
		p := pkgs[dir]
		ri := rowOf(rows, dir)
		if ri < 0 {
			t.Errorf("package %s has no row in the README's layout table", dir)
			continue
		}
		r := rows[ri]
		for _, imp := range p.imports {
			ii := rowOf(rows, imp)
			switch {
			case ii == ri:
				continue // a sub-package of its own row
			case ii > ri:
				t.Errorf("%s imports %s, a package of a row below its own in the README's layout table", dir, imp)
			case !r.all && !slices.ContainsFunc(r.imports, func(e string) bool { return allows(e, imp) }):
				t.Errorf("%s imports %s, which its row of the README's layout table does not list: %s", dir, imp, r.text)
			}
		}
	}
	// Every folder a row names is a package (or holds some).
	for _, r := range rows {
		for _, f := range r.folders {
			if !slices.ContainsFunc(sortedKeys(pkgs), func(d string) bool { return d == f || strings.HasPrefix(d, f+"/") }) {
				if _, err := os.Stat(filepath.Join(root, f)); err != nil || f == "examples" {
					if f != "examples" {
						t.Errorf("the README's layout table names %s, which is no package of the module", f)
					}
				}
			}
		}
	}
}

// isLibrary reports whether dir is a package a user's code imports: not a
// command, not the simulated phone or its lab, not a test helper.
func isLibrary(dir string) bool {
	for _, pre := range []string{"cmd", "simdevice", "simlab", "internal/simtest", "internal/testenv", "internal/fixtures", "internal/capturegen", "internal/memwatch", "example_test", "."} {
		if dir == pre || strings.HasPrefix(dir, pre+"/") {
			return false
		}
	}
	return true
}

// No library package depends on the simulated phone: it is a test double
// (adbtest serves it, but takes it through an interface). And the
// packages downstream of budget judge through budget, never through the
// TestingT adapters of assert.
func TestLibraryDependencies(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	for _, dir := range sortedKeys(pkgs) {
		p := pkgs[dir]
		if isLibrary(dir) && slices.ContainsFunc(p.deps, func(d string) bool { return d == "simdevice" || strings.HasPrefix(d, "simdevice/") }) {
			t.Errorf("library package %s depends on the simulated phone", dir)
		}
	}
	for _, dir := range []string{"perftest", "report", "history", "cmd/perfgate", "budget", "scenario"} {
		if p := pkgs[dir]; p == nil {
			t.Errorf("no package %s", dir)
		} else if slices.Contains(p.deps, "assert") {
			t.Errorf("%s depends on assert: it judges through budget", dir)
		}
	}
}

// Sizes the layout keeps: a package of at most maxPackageLines non-test
// lines (the simulated phone aside), at most maxDecls declarations in its
// go doc -short, cmd/perfgate under maxCLILines, and functions of at most
// maxFuncLines lines. The packages and functions past them today are
// listed: one past them that is not listed fails, and so does one listed
// that no longer is (take it off the list).
const (
	maxPackageLines = 3500
	maxDecls        = 120
	maxCLILines     = 2000
	maxFuncLines    = 80
)

// The packages and functions still past the sizes.
var (
	largePackages = []string{}
	wideAPIs      = []string{}
	longFuncs     = []string{
		"perftest/checkpoint.go Session.checkpointLocked",
		"result/metrics.go Step.catalogue",
		"perftest/session.go Session.stop",
	}
)

// ratchet fails for a name past a size that is not listed, and for a
// listed name no longer past it.
func ratchet(t *testing.T, what string, past, listed []string) {
	t.Helper()
	for _, n := range past {
		if !slices.Contains(listed, n) {
			t.Errorf("%s: %s", what, n)
		}
	}
	for _, n := range listed {
		if !slices.Contains(past, n) {
			t.Errorf("%s no longer holds for %s: take it off the list", what, n)
		}
	}
}

func TestLayoutSizes(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	fset := token.NewFileSet()
	var large, long []string
	for _, dir := range sortedKeys(pkgs) {
		lines := 0
		for _, path := range pkgs[dir].files {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines += strings.Count(string(b), "\n")
			f, err := parser.ParseFile(fset, path, b, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			rel := filepath.ToSlash(filepath.Join(dir, filepath.Base(path)))
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
					if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
						long = append(long, rel+" "+funcName(fd))
					}
				}
			}
		}
		simulated := dir == "simdevice" || strings.HasPrefix(dir, "simdevice/")
		if dir == "cmd/perfgate" && lines >= maxCLILines || lines > maxPackageLines && !simulated {
			large = append(large, dir)
			t.Logf("%s: %d non-test lines", dir, lines)
		}
	}
	ratchet(t, fmt.Sprintf("a package past %d non-test lines (cmd/perfgate: %d)", maxPackageLines, maxCLILines), large, largePackages)
	t.Logf("%d functions over %d lines", len(long), maxFuncLines)
	ratchet(t, fmt.Sprintf("a function over %d lines", maxFuncLines), long, longFuncs)

	// go doc -short of each package, a few at once.
	var mu sync.Mutex
	var wide []string
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, dir := range sortedKeys(pkgs) {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := exec.Command("go", "doc", "-short", "./"+dir).Output()
			if err != nil {
				return // a package with nothing exported (main, tests only)
			}
			if n := strings.Count(string(out), "\n"); n > maxDecls {
				mu.Lock()
				wide = append(wide, dir)
				mu.Unlock()
				t.Logf("%s: %d declarations", dir, n)
			}
		})
	}
	wg.Wait()
	slices.Sort(wide)
	ratchet(t, fmt.Sprintf("a package of over %d declarations", maxDecls), wide, wideAPIs)
}

// funcName is "Recv.Name" for a method, else the name.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
