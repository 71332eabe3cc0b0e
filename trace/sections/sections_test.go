package sections

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"feed:bind", "feed:bind", true},
		{"feed:bind", "feed:bind2", false},
		{"feed:bind", "Feed:bind", false},
		{"RV_bind", "RVxbind", false}, // "_" is a character, not SQL's any one
		{"JIT %", "JIT compiling int a.b()", true},
		{"JIT %", "JIT ", true},
		{"JIT %", "JIT", false},
		{"%:bind", "feed:bind", true},
		{"%:bind", "feed:binding", false},
		{"a%b%c", "abc", true},
		{"a%b%c", "axxbyyc", true},
		{"a%b%c", "acb", false},
		{"ab%ba", "aba", false}, // prefix and suffix may not overlap
		{"%", "", true},
		{"%%", "anything", true},
	} {
		if got := (Spec{Name: tc.pattern}).Match(tc.name); got != tc.want {
			t.Errorf("%q matches %q: %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// A thread's sections pair in time order whatever order its markers were
// read in (a thread's events come per CPU), nested; an async section pairs
// by name and cookie across threads; a section never ended and an end
// without a begin are left out; a worker's sections, and async ones, are
// not the main thread's.
func TestSlices(t *testing.T) {
	var c Collector
	for _, m := range []struct {
		ts   int64
		tid  int32
		text string
	}{
		{100, 7, "B|7|outer"}, {150, 7, "B|7|inner"}, {300, 9, "B|7|worker"},
		{170, 7, "E|7"}, {200, 7, "E|7"}, {400, 9, "E|7\n"},
		{500, 7, "E|7"},      // no begin
		{600, 7, "B|7|open"}, // never ended
		{50, 8, "B|8|other process"}, {60, 8, "E|8"},
		{70, 7, "C|7|counter|5"}, {80, 7, "S|7|async|1"}, {450, 9, "F|7|async|1"},
		{85, 7, "S|7|async|2"}, {86, 7, "F|7|async|3"}, {87, 8, "F|8|async|1"},
		{90, 7, "B|x|bad"}, {91, 7, "S|7|no cookie"},
	} {
		c.Marker(m.ts, m.tid, []byte(m.text))
	}
	ss, unended := Slices(&c, []int32{7}, func(ns int64) (int64, bool) { return ns + 1000, true })
	var got []string
	for _, s := range ss {
		got = append(got, s.Name)
	}
	if strings.Join(got, ",") != "async,outer,inner,worker" || unended != 2 || c.Malformed != 2 {
		t.Fatalf("sections %v, unended %d, malformed %d", got, unended, c.Malformed)
	}
	if ss[1].Start != 1100 || ss[1].End != 1200 || !ss[1].Main() || ss[3].Main() || ss[0].Main() || ss[0].Dur() != 370 {
		t.Errorf("sections %+v", ss)
	}
	all := Measure(ss, Spec{Name: "%"}, 0, 2000)
	if all.Count != 4 || all.FirstNs != 370 || all.MinNs != 20 || all.MaxNs != 370 || all.SumNs != 590 {
		t.Errorf("all: %+v", all)
	}
	if m := Measure(ss, Spec{Name: "%", MainThread: true}, 0, 2000); m.Count != 2 || m.SumNs != 120 {
		t.Errorf("main thread: %+v", m)
	}
	// A section belongs to the window it begins in.
	if m := Measure(ss, Spec{Name: "%"}, 1150, 1300); m.Count != 1 || m.FirstNs != 20 {
		t.Errorf("window: %+v", m)
	}
}

func TestValidate(t *testing.T) {
	if err := Validate([]Spec{{Name: "a"}, {Name: "b%", MainThread: true}}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]Spec{{{Name: ""}}, {{Name: "a"}, {Name: "a", MainThread: true}}, {{Name: "a>b"}}, {{Name: " a"}}} {
		if err := Validate(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func FuzzSpecJSON(f *testing.F) {
	for _, s := range []string{`"feed:bind"`, `{"name": "JIT %", "main_thread": true}`, `{"name": 1}`, `{"x": 1}`, `7`, `null`, `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var sp Spec
		if err := json.Unmarshal([]byte(s), &sp); err != nil {
			return
		}
		b, err := json.Marshal(sp)
		if err != nil {
			t.Fatal(err)
		}
		var back Spec
		if err := json.Unmarshal(b, &back); err != nil || back != sp {
			t.Errorf("%q → %+v → %s → %+v, %v", s, sp, b, back, err)
		}
	})
}
