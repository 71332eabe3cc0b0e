package shell

import (
	"bufio"
	"fmt"
	"io/fs"
	"strings"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// ls implements toybox ls for a pipe: one name a line, -a/-A, -l/-n, -d,
// -1 and -R left out (no script that gates performance lists recursively).
func (p *proc) ls() int {
	fl, ops, err := parseFlags(p.args[1:], "aAlnd1FhsZ", "")
	if err != nil {
		return p.usage("ls", err)
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	long := has(fl, "l") || has(fl, "n")
	w := bufio.NewWriter(p.stdout)
	defer w.Flush()
	st := 0
	var files []fs.FileInfo
	var fileNames []string
	var dirs []string
	for _, op := range ops {
		fi, err := p.v.Stat(vfs.Clean(op, p.dir))
		if err != nil {
			p.errf("ls: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		if fi.IsDir() && !has(fl, "d") {
			dirs = append(dirs, op)
			continue
		}
		files = append(files, fi)
		fileNames = append(fileNames, op)
	}
	p.lsList(w, files, fileNames, long, has(fl, "n"))
	for i, d := range dirs {
		if len(ops) > 1 {
			if i > 0 || len(files) > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s:\n", d)
		}
		fis, err := p.v.ReadDir(vfs.Clean(d, p.dir))
		if err != nil {
			w.Flush()
			p.errf("ls: %s: %s\n", d, errText(err))
			st = 1
			continue
		}
		var keep []fs.FileInfo
		var names []string
		if has(fl, "a") {
			for _, n := range []string{".", ".."} {
				if fi, err := p.v.Stat(vfs.Clean(d+"/"+n, p.dir)); err == nil {
					keep = append(keep, fi)
					names = append(names, n)
				}
			}
		}
		for _, fi := range fis {
			if strings.HasPrefix(fi.Name(), ".") && !has(fl, "a") && !has(fl, "A") {
				continue
			}
			keep = append(keep, fi)
			names = append(names, fi.Name())
		}
		if long {
			fmt.Fprintf(w, "total %d\n", len(keep)*8)
		}
		p.lsList(w, keep, names, long, has(fl, "n"))
	}
	return st
}

// lsList prints entries one a line, or in toybox's long format with columns
// padded to the widest value.
func (p *proc) lsList(w *bufio.Writer, fis []fs.FileInfo, names []string, long, numeric bool) {
	if !long {
		for _, n := range names {
			fmt.Fprintln(w, n)
		}
		return
	}
	type row struct{ mode, links, owner, group, size, date, name string }
	rows := make([]row, len(fis))
	var wl, wo, wg, ws int
	for i, fi := range fis {
		owner, group := vfs.Owner(fi)
		if numeric {
			owner, group = userID(owner), userID(group)
		}
		links := "1"
		if fi.IsDir() {
			links = "2"
		}
		name := names[i]
		if fi.Mode()&fs.ModeSymlink != 0 {
			name += " -> " + vfs.Clean(name, "/")
		}
		rows[i] = row{modeString(fi.Mode()), links, owner, group, fmt.Sprint(fi.Size()), fi.ModTime().UTC().Format("2006-01-02 15:04"), name}
		wl, wo, wg, ws = max(wl, len(links)), max(wo, len(owner)), max(wg, len(group)), max(ws, len(rows[i].size))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s %*s %-*s %-*s %*s %s %s\n", r.mode, wl, r.links, wo, r.owner, wg, r.group, ws, r.size, r.date, r.name)
	}
}

// modeString renders mode as ls -l does ("drwxrwx--x").
func modeString(m fs.FileMode) string {
	b := []byte("----------")
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	}
	const rwx = "rwxrwxrwx"
	for i := range 9 {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		}
	}
	return string(b)
}
