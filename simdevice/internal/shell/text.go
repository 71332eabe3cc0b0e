package shell

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

func (p *proc) cat() int {
	fl, ops, err := parseFlags(p.args[1:], "uvAet", "")
	if err != nil {
		return p.usage("cat", err)
	}
	_ = fl
	st := 0
	for _, op := range inputs(ops) {
		if op == "-" {
			if _, err := io.Copy(p.stdout, p.stdin); err != nil && p.ctx.Err() != nil {
				return 130
			}
			continue
		}
		data, err := p.readFile(op)
		if err != nil {
			p.errf("cat: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		if _, err := p.stdout.Write(data); err != nil {
			return 1
		}
	}
	return st
}

// lines splits data into lines, keeping a final line without a newline.
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	return strings.Split(s, "\n")
}

// headTail implements head and tail: -n N (tail also +N), -c N, -N.
func (p *proc) headTail(head bool) int {
	name := "tail"
	if head {
		name = "head"
	}
	o, ops, code := p.parseHeadTail(name, head)
	if code >= 0 {
		return code
	}
	ins := inputs(ops)
	st := 0
	for i, op := range ins {
		if len(ins) > 1 && !o.quiet {
			if i > 0 {
				fmt.Fprintln(p.stdout)
			}
			fmt.Fprintf(p.stdout, "==> %s <==\n", op)
		}
		if head {
			r, err := p.lineReader(op)
			if err != nil {
				p.errf("%s: %s: %s\n", name, op, errText(err))
				st = 1
				continue
			}
			if !p.copyHead(r, o.count, o.bytes) {
				return 1
			}
			continue
		}
		data, err := p.readFile(op)
		if err != nil {
			if p.ctx.Err() != nil {
				return 130
			}
			p.errf("%s: %s: %s\n", name, op, errText(err))
			st = 1
			continue
		}
		if _, err := p.stdout.Write(o.tail(data)); err != nil {
			return 1
		}
	}
	if p.ctx.Err() != nil {
		return 130
	}
	return st
}

// headTailOpts are the options of head or tail: count lines (or bytes),
// from the end or (tail +N) from the start, headers unless quiet.
type headTailOpts struct {
	count                   int
	bytes, fromStart, quiet bool
}

// parseHeadTail reads the command line of head or tail (name); code is
// the exit status when it cannot, else -1.
func (p *proc) parseHeadTail(name string, head bool) (o headTailOpts, ops []string, code int) {
	args := slices.Clone(p.args[1:])
	for i, a := range args {
		// The historic -N form means -n N.
		if len(a) > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9' {
			args[i] = "-n" + a[1:]
		}
	}
	fl, ops, err := parseFlags(args, "qvf", "nc")
	if err != nil {
		return o, nil, p.usage(name, err)
	}
	o.count, o.quiet = 10, fl["q"] != ""
	spec, ok := fl["n"]
	if c, okc := fl["c"]; okc {
		spec, ok, o.bytes = c, true, true
	}
	if ok {
		if !head && strings.HasPrefix(spec, "+") {
			o.fromStart = true
		}
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "+"))
		if err != nil || n < 0 {
			p.errf("%s: Not integer '%s'\n", name, spec)
			return o, nil, 1
		}
		o.count = n
	}
	return o, ops, -1
}

// tail is what tail prints of data.
func (o *headTailOpts) tail(data []byte) []byte {
	switch {
	case o.bytes && o.fromStart:
		return data[min(max(o.count-1, 0), len(data)):]
	case o.bytes:
		return data[len(data)-min(o.count, len(data)):]
	}
	ls := splitKeep(data)
	if o.fromStart {
		ls = ls[min(max(o.count-1, 0), len(ls)):]
	} else {
		ls = ls[len(ls)-min(o.count, len(ls)):]
	}
	return []byte(strings.Join(ls, ""))
}

// copyHead copies the first n lines (or bytes) of r and stops reading, so
// that `logcat | head -n 5` ends after five lines.
func (p *proc) copyHead(r *bufio.Reader, n int, bytesMode bool) bool {
	if bytesMode {
		_, err := io.CopyN(p.stdout, r, int64(n))
		return err == nil || err == io.EOF
	}
	for range n {
		line, err := r.ReadString('\n')
		if line != "" {
			if _, werr := io.WriteString(p.stdout, line); werr != nil {
				return false
			}
		}
		if err != nil {
			break
		}
	}
	return true
}

// splitKeep splits data into lines that keep their newline.
func splitKeep(data []byte) []string {
	var out []string
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func (p *proc) wc() int {
	fl, ops, err := parseFlags(p.args[1:], "lwcm", "")
	if err != nil {
		return p.usage("wc", err)
	}
	cols := ""
	for _, c := range "lwcm" {
		if _, ok := fl[string(c)]; ok {
			cols += string(c)
		}
	}
	if cols == "" {
		cols = "lwc"
	}
	var total [3]int
	st := 0
	show := func(n [3]int, name string) {
		var f []string
		for _, c := range cols {
			switch c {
			case 'l':
				f = append(f, strconv.Itoa(n[0]))
			case 'w':
				f = append(f, strconv.Itoa(n[1]))
			case 'c', 'm':
				f = append(f, strconv.Itoa(n[2]))
			}
		}
		if name != "" {
			f = append(f, name)
		}
		fmt.Fprintln(p.stdout, strings.Join(f, " "))
	}
	for _, op := range inputs(ops) {
		data, err := p.readFile(op)
		if err != nil {
			if p.ctx.Err() != nil {
				return 130
			}
			p.errf("wc: %s: %s\n", op, errText(err))
			st = 1
			continue
		}
		n := [3]int{bytes.Count(data, []byte("\n")), len(bytes.Fields(data)), len(data)}
		if _, ok := fl["m"]; ok {
			n[2] = len([]rune(string(data)))
		}
		for i := range n {
			total[i] += n[i]
		}
		name := op
		if op == "-" && len(ops) == 0 {
			name = ""
		}
		show(n, name)
	}
	if len(ops) > 1 {
		show(total, "total")
	}
	return st
}

func (p *proc) base64() int {
	fl, ops, err := parseFlags(p.args[1:], "di", "w")
	if err != nil {
		return p.usage("base64", err)
	}
	data, err := p.readFile(inputs(ops)[0])
	if err != nil {
		p.errf("base64: %s: %s\n", inputs(ops)[0], errText(err))
		return 1
	}
	if has(fl, "d") {
		clean := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, string(data))
		out, err := base64.StdEncoding.DecodeString(clean)
		p.stdout.Write(out)
		if err != nil {
			p.errf("base64: bad input\n")
			return 1
		}
		return 0
	}
	wrap := 76
	if w, ok := fl["w"]; ok {
		if wrap, err = strconv.Atoi(w); err != nil || wrap < 0 {
			p.errf("base64: Not integer '%s'\n", w)
			return 1
		}
	}
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for wrap > 0 && len(enc) > wrap {
		b.WriteString(enc[:wrap] + "\n")
		enc = enc[wrap:]
	}
	b.WriteString(enc + "\n")
	io.WriteString(p.stdout, b.String())
	return 0
}

func (p *proc) seq() int {
	var n []int
	for _, a := range p.args[1:] {
		v, err := strconv.Atoi(a)
		if err != nil {
			p.errf("seq: Not integer '%s'\n", a)
			return 1
		}
		n = append(n, v)
	}
	first, step, last := 1, 1, 0
	switch len(n) {
	case 1:
		last = n[0]
	case 2:
		first, last = n[0], n[1]
	case 3:
		first, step, last = n[0], n[1], n[2]
	default:
		p.errf("seq: Needs 1 to 3 arguments\n")
		return 1
	}
	if step == 0 {
		p.errf("seq: step cannot be 0\n")
		return 1
	}
	w := bufio.NewWriter(p.stdout)
	for i := first; step > 0 && i <= last || step < 0 && i >= last; i += step {
		if p.ctx.Err() != nil {
			return 130
		}
		if _, err := fmt.Fprintln(w, i); err != nil {
			return 1
		}
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

func (p *proc) sort() int {
	fl, ops, err := parseFlags(p.args[1:], "nru", "")
	if err != nil {
		return p.usage("sort", err)
	}
	var all []string
	for _, op := range inputs(ops) {
		data, err := p.readFile(op)
		if err != nil {
			p.errf("sort: %s: %s\n", op, errText(err))
			return 2
		}
		all = append(all, lines(data)...)
	}
	cmp := strings.Compare
	if has(fl, "n") {
		cmp = func(a, b string) int {
			x, y := leadingNumber(a), leadingNumber(b)
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return strings.Compare(a, b)
		}
	}
	slices.SortStableFunc(all, cmp)
	if has(fl, "r") {
		slices.Reverse(all)
	}
	if has(fl, "u") {
		all = slices.Compact(all)
	}
	for _, l := range all {
		fmt.Fprintln(p.stdout, l)
	}
	return 0
}

func leadingNumber(s string) float64 {
	s = strings.TrimLeft(s, " \t")
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || end == 0 && s[end] == '-') {
		end++
	}
	f, _ := strconv.ParseFloat(s[:end], 64)
	return f
}

func (p *proc) uniq() int {
	fl, ops, err := parseFlags(p.args[1:], "c", "")
	if err != nil {
		return p.usage("uniq", err)
	}
	data, err := p.readFile(inputs(ops)[0])
	if err != nil {
		p.errf("uniq: %s: %s\n", inputs(ops)[0], errText(err))
		return 1
	}
	ls := lines(data)
	for i := 0; i < len(ls); {
		j := i
		for j < len(ls) && ls[j] == ls[i] {
			j++
		}
		if has(fl, "c") {
			fmt.Fprintf(p.stdout, "%7d %s\n", j-i, ls[i])
		} else {
			fmt.Fprintln(p.stdout, ls[i])
		}
		i = j
	}
	return 0
}

// cut implements -d DELIM -f LIST (fields) and -c LIST (characters).
func (p *proc) cut() int {
	fl, ops, err := parseFlags(p.args[1:], "s", "dfc")
	if err != nil {
		return p.usage("cut", err)
	}
	list, chars := fl["f"], false
	if c, ok := fl["c"]; ok {
		list, chars = c, true
	}
	ranges, err := parseList(list)
	if err != nil {
		p.errf("cut: bad list '%s'\n", list)
		return 1
	}
	delim := "\t"
	if d, ok := fl["d"]; ok {
		if len(d) != 1 {
			p.errf("cut: -d needs one character\n")
			return 1
		}
		delim = d
	}
	for _, op := range inputs(ops) {
		data, err := p.readFile(op)
		if err != nil {
			p.errf("cut: %s: %s\n", op, errText(err))
			return 1
		}
		for _, l := range lines(data) {
			var parts []string
			if chars {
				for _, r := range l {
					parts = append(parts, string(r))
				}
			} else {
				if !strings.Contains(l, delim) {
					if !has(fl, "s") {
						fmt.Fprintln(p.stdout, l)
					}
					continue
				}
				parts = strings.Split(l, delim)
			}
			var sel []string
			for i, part := range parts {
				if inRanges(ranges, i+1) {
					sel = append(sel, part)
				}
			}
			sep := delim
			if chars {
				sep = ""
			}
			fmt.Fprintln(p.stdout, strings.Join(sel, sep))
		}
	}
	return 0
}

// parseList reads a cut list such as 1,3-5,7-.
func parseList(s string) ([][2]int, error) {
	if s == "" {
		return nil, fmt.Errorf("empty list")
	}
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, b := 1, 1<<30
		var err error
		if lo != "" {
			if a, err = strconv.Atoi(lo); err != nil || a < 1 {
				return nil, fmt.Errorf("bad list")
			}
		}
		if !isRange {
			b = a
		} else if hi != "" {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad list")
			}
		}
		out = append(out, [2]int{a, b})
	}
	return out, nil
}

func inRanges(r [][2]int, n int) bool {
	for _, x := range r {
		if n >= x[0] && n <= x[1] {
			return true
		}
	}
	return false
}
