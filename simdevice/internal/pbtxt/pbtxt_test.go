package pbtxt

import (
	"errors"
	"strings"
	"testing"
)

// The config of the README's "trace taken by hand", as perfetto --txt
// reads it.
const readmeConfig = `duration_ms: 10000
buffers { size_kb: 65536 fill_policy: RING_BUFFER }
data_sources { config { name: "linux.ftrace" ftrace_config {
  ftrace_events: "sched/sched_switch" ftrace_events: "sched/sched_waking"
  atrace_categories: "gfx" atrace_apps: "com.example" } } }
# a comment
data_sources: { config { name: 'linux.process_stats' process_stats_config { scan_all_processes_on_start: true } } }
`

func TestParse(t *testing.T) {
	m, err := Parse([]byte(readmeConfig))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok, err := m.Int("duration_ms"); !ok || err != nil || d != 10000 {
		t.Errorf("duration_ms %d %v %v", d, ok, err)
	}
	buf, _ := m.Get("buffers")
	if kb, _, _ := buf.Msg.Int("size_kb"); kb != 65536 {
		t.Errorf("size_kb %d", kb)
	}
	if fp, _ := buf.Msg.Get("fill_policy"); fp.Value != "RING_BUFFER" || fp.Quoted {
		t.Errorf("fill_policy %+v", fp)
	}
	ds := m.All("data_sources")
	if len(ds) != 2 {
		t.Fatalf("%d data sources", len(ds))
	}
	cfg, _ := ds[0].Msg.Get("config")
	if n, _ := cfg.Msg.Get("name"); n.Value != "linux.ftrace" || !n.Quoted {
		t.Errorf("name %+v", n)
	}
	ft, _ := cfg.Msg.Get("ftrace_config")
	if ev := ft.Msg.Strings("ftrace_events"); strings.Join(ev, ",") != "sched/sched_switch,sched/sched_waking" {
		t.Errorf("events %q", ev)
	}
	cfg2, _ := ds[1].Msg.Get("config")
	if n, _ := cfg2.Msg.Get("name"); n.Value != "linux.process_stats" {
		t.Errorf("single-quoted name %+v", n)
	}
	ps, _ := cfg2.Msg.Get("process_stats_config")
	if v, ok, err := ps.Msg.Bool("scan_all_processes_on_start"); !v || !ok || err != nil {
		t.Errorf("bool %v %v %v", v, ok, err)
	}
	if ps.Line != 7 {
		t.Errorf("line %d, want 7", ps.Line)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"duration_ms 5", "want ':' or '{' after duration_ms"},
		{"buffers { size_kb: 1", "'}' missing"},
		{"}", "'}' without '{'"},
		{"name: \"open", "string not closed"},
		{"name: ", "value of name missing"},
		{"9x: 1", "want a field name"},
		{"a: 1\nb: \"\\q\"", "2: bad string"},
		{strings.Repeat("a {", 70), "nested deeper"},
	} {
		_, err := Parse([]byte(tc.in))
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	m, _ := Parse([]byte("d: abc b: maybe"))
	if _, _, err := m.Int("d"); err == nil {
		t.Error("Int of an identifier gave no error")
	}
	if _, _, err := m.Bool("b"); err == nil {
		t.Error("Bool of maybe gave no error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(readmeConfig))
	f.Add([]byte("a { b: 'x\\'y' c: \"p\" \"q\" }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v is not an *Error with a line", err)
			}
			return
		}
		for _, fl := range m.Fields {
			if fl.Name == "" {
				t.Fatal("a field without a name")
			}
		}
	})
}
