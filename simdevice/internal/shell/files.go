package shell

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

func (p *proc) mkdir() int {
	fl, ops, err := parseFlags(p.args[1:], "pv", "m")
	if err != nil || len(ops) == 0 {
		p.errf("mkdir: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		if err := p.v.Mkdir(vfs.Clean(op, p.dir), has(fl, "p"), time.Now()); err != nil {
			p.errf("mkdir: %s: %s\n", op, errText(err))
			st = 1
		}
	}
	return st
}

func (p *proc) rm() int {
	fl, ops, err := parseFlags(p.args[1:], "rRfiv", "")
	if err != nil {
		return p.usage("rm", err)
	}
	if len(ops) == 0 && !has(fl, "f") {
		p.errf("rm: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		err := p.v.Remove(vfs.Clean(op, p.dir), has(fl, "r") || has(fl, "R"))
		if err == nil {
			continue
		}
		if has(fl, "f") && errText(err) == "No such file or directory" {
			continue
		}
		if errText(err) == "Is a directory" {
			p.errf("rm: %s: Is a directory\n", op)
		} else {
			p.errf("rm: %s: %s\n", op, errText(err))
		}
		st = 1
	}
	return st
}

// touch sets files' modification time to the device's clock, or to -d
// DATE (@SECONDS, RFC 3339, "YYYY-MM-DD hh:mm:ss") or -t
// [[CC]YY]MMDDhhmm[.ss] as toybox reads them; -r is not simulated.
func (p *proc) touch() int {
	fl, ops, err := parseFlags(p.args[1:], "acm", "dtr")
	if err != nil || len(ops) == 0 {
		p.errf("touch: Needs 1 argument\n")
		return 1
	}
	mtime := time.Now()
	if p.s.cfg.Wall != nil {
		mtime = p.s.cfg.Wall()
	}
	if d, ok := fl["d"]; ok {
		t, ok := parseDateArg(d)
		if !ok {
			p.errf("touch: bad date '%s'\n", d)
			return 1
		}
		mtime = t
	}
	if ts, ok := fl["t"]; ok {
		t, ok := parseTouchStamp(ts, mtime)
		if !ok {
			p.errf("touch: bad date '%s'\n", ts)
			return 1
		}
		mtime = t
	}
	st := 0
	for _, op := range ops {
		cp := vfs.Clean(op, p.dir)
		if has(fl, "c") {
			if _, err := p.v.Stat(cp); err != nil {
				continue
			}
		}
		if err := p.v.Touch(cp, mtime); err != nil {
			p.errf("touch: %s: %s\n", op, errText(err))
			st = 1
		}
	}
	return st
}

// parseTouchStamp reads touch -t's [[CC]YY]MMDDhhmm[.ss] in UTC (the
// simulated phone's zone); a missing year is now's.
func parseTouchStamp(s string, now time.Time) (time.Time, bool) {
	main, sec, hasSec := strings.Cut(s, ".")
	if strings.Trim(main, "0123456789") != "" || (hasSec && (len(sec) != 2 || strings.Trim(sec, "0123456789") != "")) {
		return time.Time{}, false
	}
	year := now.Year()
	switch len(main) {
	case 8:
	case 10:
		yy, _ := strconv.Atoi(main[:2])
		year = 1900 + yy
		if yy < 69 {
			year = 2000 + yy
		}
		main = main[2:]
	case 12:
		year, _ = strconv.Atoi(main[:4])
		main = main[4:]
	default:
		return time.Time{}, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(main[i : i+2]); return n }
	ss := 0
	if hasSec {
		ss, _ = strconv.Atoi(sec)
	}
	mo, dd, hh, mm := num(0), num(2), num(4), num(6)
	if mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(mo), dd, hh, mm, ss, 0, time.UTC), true
}

func (p *proc) chmod() int {
	args := p.args[1:]
	if len(args) > 0 && (args[0] == "-R" || args[0] == "-f") {
		args = args[1:]
	}
	if len(args) < 2 {
		p.errf("chmod: Needs 2 arguments\n")
		return 1
	}
	st := 0
	for _, op := range args[1:] {
		cp := vfs.Clean(op, p.dir)
		if err := p.v.Chmod(cp, args[0]); err != nil {
			p.errf("chmod: %s: %s\n", op, errText(err))
			st = 1
		}
	}
	return st
}

// stat implements `stat [-c FORMAT] FILE...` with the common conversions.
func (p *proc) stat() int {
	fl, ops, err := parseFlags(p.args[1:], "Lft", "c")
	if err != nil || len(ops) == 0 {
		p.errf("stat: Needs 1 argument\n")
		return 1
	}
	st := 0
	for _, op := range ops {
		fi, err := p.v.Stat(vfs.Clean(op, p.dir))
		if err != nil {
			p.errf("stat: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		format, ok := fl["c"]
		if !ok {
			format = "  File: %n\n  Size: %s\t Blocks: %b\t IO Blocks: 4096\t%F\nAccess: (%a/%A)\tUid: (%u/%U)\tGid: (%g/%G)\nModify: %y"
		}
		fmt.Fprintln(p.stdout, statFormat(format, op, fi))
	}
	return st
}

func statFormat(f, name string, fi fs.FileInfo) string {
	owner, group := vfs.Owner(fi)
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'n':
			b.WriteString(name)
		case 's':
			b.WriteString(strconv.FormatInt(fi.Size(), 10))
		case 'b':
			b.WriteString(strconv.FormatInt((fi.Size()+511)/512, 10))
		case 'a':
			fmt.Fprintf(&b, "%o", fi.Mode().Perm())
		case 'A':
			b.WriteString(modeString(fi.Mode()))
		case 'F':
			b.WriteString(fileType(fi.Mode()))
		case 'U':
			b.WriteString(owner)
		case 'G':
			b.WriteString(group)
		case 'u':
			b.WriteString(userID(owner))
		case 'g':
			b.WriteString(userID(group))
		case 'Y', 'X', 'Z':
			b.WriteString(strconv.FormatInt(fi.ModTime().Unix(), 10))
		case 'y', 'x', 'z':
			b.WriteString(fi.ModTime().UTC().Format("2006-01-02 15:04:05.000000000 -0700"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func userID(name string) string {
	switch name {
	case "root":
		return "0"
	case "system":
		return "1000"
	case "shell":
		return "2000"
	case "everybody":
		return "9997"
	}
	return "0"
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeCharDevice != 0:
		return "character special file"
	}
	return "regular file"
}
