package shell

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// sleep waits, ending early (status 130) when the stream closes.
func (p *proc) sleep() int {
	if len(p.args) < 2 {
		p.errf("sleep: Needs 1 argument\n")
		return 1
	}
	var d time.Duration
	for _, a := range p.args[1:] {
		n, err := parseSleep(a)
		if err != nil {
			p.errf("sleep: Bad duration '%s'\n", a)
			return 1
		}
		d += n
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-p.ctx.Done():
		return 130
	}
}

// parseSleep reads a toybox duration: a decimal number with an optional
// s, m, h or d suffix.
func parseSleep(s string) (time.Duration, error) {
	unit := time.Second
	if s != "" {
		switch s[len(s)-1] {
		case 's':
			s = s[:len(s)-1]
		case 'm':
			unit, s = time.Minute, s[:len(s)-1]
		case 'h':
			unit, s = time.Hour, s[:len(s)-1]
		case 'd':
			unit, s = 24*time.Hour, s[:len(s)-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e6 || s == "" || strings.ContainsAny(s, "xXpPeEnNiI_") {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return time.Duration(f * float64(unit)), nil
}

func (p *proc) date() int {
	args := p.args[1:]
	now := p.s.cfg.Wall()
	format := "%a %b %e %H:%M:%S %Z %Y"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-u" || a == "--utc":
		case a == "-d" && i+1 < len(args):
			i++
			t, ok := parseDateArg(args[i])
			if !ok {
				p.errf("date: bad date '%s'\n", args[i])
				return 1
			}
			now = t
		case strings.HasPrefix(a, "+"):
			format = a[1:]
		default:
			// Setting the clock needs root and a real RTC.
			p.errf("date: cannot set date: Operation not permitted\n")
			return 1
		}
	}
	fmt.Fprintln(p.stdout, strftime(format, now))
	return 0
}

// parseDateArg reads the -d forms scripts use: @SECONDS and RFC 3339.
func parseDateArg(s string) (time.Time, bool) {
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		f, err := strconv.ParseFloat(rest, 64)
		if err != nil || f < -1e12 || f > 1e12 {
			return time.Time{}, false
		}
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), true
	}
	for _, l := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// strftime formats t with the conversions of toybox date.
func strftime(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 >= len(f) {
			b.WriteByte(c)
			continue
		}
		i++
		switch f[i] {
		case '%':
			b.WriteByte('%')
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(t.Format("Mon Jan  2 15:04:05 2006"))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'k':
			fmt.Fprintf(&b, "%2d", t.Hour())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'n':
			b.WriteByte('\n')
		case 'N':
			fmt.Fprintf(&b, "%09d", t.Nanosecond())
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 't':
			b.WriteByte('\t')
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'u':
			fmt.Fprintf(&b, "%d", (int(t.Weekday())+6)%7+1)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}
