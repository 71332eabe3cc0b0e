package jsondup

import (
	"reflect"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       *Dup
	}{
		{"none", `{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}`, nil},
		{"top level", "{\"a\": 1,\n\"a\": 2}", &Dup{Key: "a", First: 1, Second: 2}},
		{"nested", "{\n\"steps\": {\n \"scroll\": {\n  \"jank\": {\"max\": 3},\n  \"fps\": {\"min\": 50},\n  \"jank\": {\"max\": 300}\n }\n}\n}",
			&Dup{Key: "jank", Path: []string{"steps", "scroll"}, First: 4, Second: 6}},
		{"inside an entry", `{"s": {"jank": {"max": 3, "unit": "frames", "max": 300}}}`,
			&Dup{Key: "max", Path: []string{"s", "jank"}, First: 1, Second: 1}},
		{"in an array", "{\"steps\": [{\"name\": \"a\"},\n {\"name\": \"b\",\n \"name\": \"c\"}]}",
			&Dup{Key: "name", Path: []string{"steps", "[1]"}, First: 2, Second: 3}},
		{"key equal to a value", `{"a": "b", "b": "a"}`, nil},
		{"after nested arrays", `{"a": [[1, 2], [3]], "b": 1, "a": 0}`, &Dup{Key: "a", First: 1, Second: 1}},
		{"broken JSON", `{"a": 1, "a": }`, &Dup{Key: "a", First: 1, Second: 1}},
		{"broken before", `{"a": , "a": 1}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Find([]byte(tc.text)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Find = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestError(t *testing.T) {
	d := Find([]byte("{\"steps\": {\"scroll\": {\n\"jank\": {\"max\": 3},\n\"jank\": {\"max\": 300}}}}"))
	want := `b.json:3: duplicate key "jank" in object "steps"."scroll" (lines 2 and 3); keep one`
	if d == nil || d.Error("b.json").Error() != want {
		t.Errorf("got %v\nwant %s", d, want)
	}
	long := strings.Repeat("k", 10_000)
	d = Find([]byte(`{"` + long + `": 1, "` + long + `": 2}`))
	if d == nil || len(d.Error("b.json").Error()) > 300 {
		t.Errorf("message of a long key: %v", d)
	}
}

// Find never panics, and the lines it names are lines of the text, the
// second not before the first.
func FuzzFind(f *testing.F) {
	f.Add([]byte(`{"a": 1, "b": {"a": 2, "a": 3}}`))
	f.Add([]byte(`[{"x": [1, {"y": 2, "y": 3}]}]`))
	f.Add([]byte(`{"a": 1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := Find(b)
		if d == nil {
			return
		}
		lines := 1 + strings.Count(string(b), "\n")
		if d.First < 1 || d.Second < d.First || d.Second > lines {
			t.Fatalf("finding %+v in %d lines: %q", d, lines, b)
		}
	})
}

func TestDecode(t *testing.T) {
	var v struct{ A int }
	if err := Decode("x.json", []byte(`{"A": 1}`), &v); err != nil || v.A != 1 {
		t.Errorf("%v %+v", err, v)
	}
	for in, want := range map[string]string{
		`{"A": 1, "A": 2}`: `x.json:1: duplicate key "A"`,
		`{"B": 1}`:         `x.json: json: unknown field "B"`,
		"{\n\"A\": ,}":     "x.json:2: bad JSON",
		`{"A": 1} {}`:      "x.json: text after the top-level value",
	} {
		if err := Decode("x.json", []byte(in), &v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}
