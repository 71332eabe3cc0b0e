package markers

import (
	"bytes"
	"strconv"
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
			if c.Len() != 0 || (c.Malformed == 1) != (len(line) > 0 && bytes.IndexByte([]byte("BESF"), line[0]) >= 0) {
				t.Fatalf("%q: no marker, yet %d kept, %d malformed", line, c.Len(), c.Malformed)
			}
			return
		}
		if c.Len() != 1 || c.Malformed != 0 || m.TGID < 0 || line[0] != "?BESF"[m.Kind] {
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
