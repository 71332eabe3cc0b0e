package frametiming

import (
	"bytes"
	"testing"
)

// FuzzParseMarker: any line is read without panicking; a begin has its
// process and names a frame slice only when the line does.
func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{"B|4242|Choreographer#doFrame 123", "E|4242", "E", "B|1|DrawFrames 9\n", "C|4242|count|3", "B|x|y", "B|4242", "S|1|a|2", "Ex", "", "B||n", "B|-3|DrawFrame"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := parseMarker(line)
		if !ok {
			return
		}
		if m.begin {
			if m.tgid <= 0 || line[0] != 'B' {
				t.Fatalf("%q: begin %+v", line, m)
			}
			if m.name != "" && !bytes.Contains(line, []byte(m.name)) {
				t.Fatalf("%q: name %q not in the line", line, m.name)
			}
		} else if line[0] != 'E' {
			t.Fatalf("%q: end %+v", line, m)
		}
		if id := frameID(m.name); id < 0 {
			t.Fatalf("%q: id %d", m.name, id)
		}
		// Through the Collector: one mark a begin or an end.
		var c Collector
		c.Marker(1, 7, line)
		if len(c.marks) != 1 || (c.marks[0].what == endMark) == m.begin || m.name != "" && c.names[0] != m.name {
			t.Fatalf("%q: marks %+v, names %q", line, c.marks, c.names)
		}
	})
}
