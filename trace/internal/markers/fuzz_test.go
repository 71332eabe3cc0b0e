package markers

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse: any line is read without panicking; what it reads is in the
// line, a begin has a name, an async marker a process and a cookie; a
// begin then an end on one thread make one slice, a begin alone one left
// open.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"B|4242|Choreographer#doFrame 123", "E|4242", "E", "E|x", "Ex", "B|1|DrawFrames 9\n", "C|4242|count|3",
		"B|x|y", "B|4242", "B|", "B", "B|0|zero", "B|-3|n", "S|1|a|2", "F|1|a|b|7", "S|1|a|", "F|0|a|1", "E|1|name\n\x00", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := Parse(line)
		var c Collector
		c.Marker(1, 7, line)
		if !ok {
			if c.Len() != 0 || (c.Malformed == 1) != (len(line) > 0 && bytes.IndexByte([]byte("BESFNGHI"), line[0]) >= 0) {
				t.Fatalf("%q: no marker, yet %d kept, %d malformed", line, c.Len(), c.Malformed)
			}
			return
		}
		if (c.Len() == 1) != (m.Kind != Counter) || c.Malformed != 0 || m.TGID < 0 || line[0] != "?BESFNGHCI"[m.Kind] {
			t.Fatalf("%q: %+v, %d kept, %d malformed", line, m, c.Len(), c.Malformed)
		}
		switch m.Kind {
		case Begin:
			if len(m.Name) == 0 || string(m.Name) != EmptyName && !bytes.Contains(line, m.Name) {
				t.Fatalf("%q: begin %+v", line, m)
			}
		case AsyncBegin, AsyncEnd:
			if m.TGID == 0 || len(m.Name) == 0 || len(m.Cookie) == 0 || !bytes.Contains(line, m.Name) {
				t.Fatalf("%q: async %+v", line, m)
			}
		}
		end := "E"
		if m.Kind == AsyncBegin {
			end = "F|" + strconv.Itoa(int(m.TGID)) + "|" + string(m.Name) + "|" + string(m.Cookie)
		}
		c.Marker(2, 7, []byte(end))
		var ended, open []Slice
		keep := func(s Slice, done bool) {
			if done {
				ended = append(ended, s)
			} else {
				open = append(open, s)
			}
		}
		lost := c.Threads(keep)
		c.Async(keep)
		switch m.Kind {
		case Begin, AsyncBegin:
			if len(ended) != 1 || len(open) != 0 || lost != 0 || ended[0].Start != 1 || ended[0].End != 2 || ended[0].PID <= 0 {
				t.Fatalf("%q then %q: ended %+v, open %+v, %d ends without begin", line, end, ended, open, lost)
			}
		case End:
			if len(ended) != 0 || len(open) != 0 || lost != 2 {
				t.Fatalf("%q then %q: ended %+v, open %+v, %d ends without begin", line, end, ended, open, lost)
			}
		}
	})
}

// FuzzThreads: markers of two threads, one a line, pair into as many
// slices, ended or open, as there are begins, every end closing one or
// counted as without a begin; a slice ends no sooner than it began.
func FuzzThreads(f *testing.F) {
	f.Add([]byte("B|1|a\nB|1|b\nE|1\nE\nE|x\nB|1\nB|0|z\nS|1|a|2\nF|1|a|2\nC|1|c|3"), uint64(7))
	f.Fuzz(func(t *testing.T, text []byte, seed uint64) {
		var c Collector
		begins, ends := 0, 0
		for i, line := range bytes.Split(text, []byte("\n")) {
			if m, ok := Parse(line); ok && m.Kind == Begin {
				begins++
			} else if ok && m.Kind == End {
				ends++
			}
			// Times go back now and then, as a thread's markers do across
			// CPUs.
			ts := int64(i*10) - int64(seed>>uint(i%60)&7)
			c.Marker(ts, int32(1+seed>>uint(i%64)&1), line)
		}
		ended, open := 0, 0
		lost := c.Threads(func(s Slice, done bool) {
			if done {
				ended++
				if s.End < s.Start || s.Depth < 0 {
					t.Fatalf("slice %+v", s)
				}
			} else {
				open++
			}
		})
		if ended+open != begins || ended+lost != ends {
			t.Fatalf("%d begins, %d ends: %d ended, %d open, %d ends without begin", begins, ends, ended, open, lost)
		}
	})
}

// refNamed reads a named-track marker or a counter as
// systrace_parser.h's ParseSystraceTracePoint does, field by field:
// phase, tgid, then per phase the fields it reads, each up to the next
// '|'.
func refNamed(line string) (phase byte, track, name, cookie string, ok bool) {
	fs := strings.Split(strings.TrimRight(line, "\n\x00"), "|")
	at := func(i int) string {
		if i < len(fs) {
			return fs[i]
		}
		return ""
	}
	isNum := func(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }
	if len(fs[0]) != 1 {
		return 0, "", "", "", false
	}
	pid, err := strconv.ParseUint(at(1), 10, 31)
	if err != nil || pid > math.MaxInt32 || at(2) == "" {
		return 0, "", "", "", false
	}
	switch phase = fs[0][0]; phase {
	case 'N':
		return phase, at(2), at(3), "", at(3) != ""
	case 'G':
		return phase, at(2), at(3), at(4), at(3) != "" && isNum(at(4))
	case 'H':
		c := at(4)
		if c == "" {
			c = at(3)
		}
		return phase, at(2), "", c, isNum(c)
	case 'C':
		return phase, "", at(2), "", isNum(at(3))
	case 'I':
		return phase, "", at(2), "", true
	}
	return 0, "", "", "", false
}

// FuzzNamed: a named-track marker or a counter is read as the reference
// reads it; a named track's begin and its end, from any thread, make one
// slice on the process's track, with no thread.
func FuzzNamed(f *testing.F) {
	for _, s := range []string{"N|1938|track|instant", "G|1339|track|slice|789", "H|6890|track|slice|135", "H|6890|track|135",
		"G|1|t|n|x", "G|1||n|2", "N|1|t|", "H|1|t||", "H|1|t|", "C|3209|Bytes-value|0|Blob", "C|1|c|x", "I|1|i", "I|1|", "I|1|i|x", "G|x|t|n|1", "N|1|t|a|b", "Gx|1|t|n|1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) == 0 || bytes.IndexByte([]byte("NGHCI"), line[0]) < 0 {
			return
		}
		m, ok := Parse(line)
		phase, track, name, cookie, want := refNamed(string(line))
		if ok != want {
			t.Fatalf("%q: read %v (%+v), the reference %v", line, ok, m, want)
		}
		if !ok {
			return
		}
		kind := map[byte]Kind{'N': TrackInstant, 'G': TrackBegin, 'H': TrackEnd, 'C': Counter, 'I': Instant}[phase]
		if m.Kind != kind || string(m.Track) != track || string(m.Name) != name || string(m.Cookie) != cookie {
			t.Fatalf("%q: %+v, the reference %c %q %q %q", line, m, phase, track, name, cookie)
		}
		if kind != TrackBegin {
			return
		}
		var c Collector
		c.Marker(1, 7, line)
		c.Marker(2, 8, []byte("H|"+strconv.Itoa(int(m.TGID))+"|"+track+"|"+cookie))
		var got []TrackSlice
		if lost := c.Tracks(func(s TrackSlice, ended bool) {
			if ended {
				got = append(got, s)
			}
		}); lost != 0 || len(got) != 1 || got[0].Name != name || got[0].Track != track || got[0].TID != 0 || got[0].PID != m.TGID || got[0].End != 2 {
			t.Fatalf("%q: slices %+v, %d ends without begin", line, got, lost)
		}
	})
}
