package shell

import (
	"maps"
	"slices"
	"testing"
	"time"
)

func TestBreToGo(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`a\(b\)*`, `a(b)*`},
		{`*a`, `\*a`},
		{`^*a`, `^\*a`},
		{`a|b+c?`, `a\|b\+c\?`},
		{`x\{1,2\}`, `x{1,2}`},
		{`[(]`, `[(]`},
		{`\.`, `\.`},
		{`\<w\>`, `\bw\b`},
		{`a\|b`, `a|b`},
	} {
		if got := breToGo(tc.in); got != tc.want {
			t.Errorf("breToGo(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStrftime(t *testing.T) {
	tm := time.Date(2024, 3, 5, 7, 8, 9, 12345, time.UTC)
	for _, tc := range []struct{ f, want string }{
		{"%Y-%m-%d %H:%M:%S", "2024-03-05 07:08:09"},
		{"%s", "1709622489"},
		{"%N", "000012345"},
		{"%e|%k|%I%p", " 5| 7|07AM"},
		{"%a %b %j %u %w %y %%", "Tue Mar 065 2 2 24 %"},
		{"%F %T %Z", "2024-03-05 07:08:09 UTC"},
		{"%q trailing%", "%q trailing%"},
	} {
		if got := strftime(tc.f, tm); got != tc.want {
			t.Errorf("strftime(%q) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestParseSleep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1", time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"2m", 2 * time.Minute, true},
		{"1h", time.Hour, true},
		{"1d", 24 * time.Hour, true},
		{"3s", 3 * time.Second, true},
		{"", 0, false},
		{"s", 0, false},
		{"-1", 0, false},
		{"0x10", 0, false},
		{"inf", 0, false},
		{"1e3", 0, false},
	} {
		got, err := parseSleep(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSleep(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// toybox's getopt: flags bundle, a value is the rest of its word or the
// next word, flags may follow operands, "--" ends them and "-" is stdin.
func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		fl      map[string]string
		ops     []string
		wantErr string
	}{
		{[]string{"-qn5", "a", "-c", "7", "-", "--", "-q"}, map[string]string{"q": "1", "n": "5", "c": "7"}, []string{"a", "-", "-q"}, ""},
		{[]string{"-n"}, nil, nil, "Missing argument to -n"},
		{[]string{"a", "-z"}, nil, nil, "Unknown option 'z'"},
	} {
		fl, ops, err := parseFlags(tc.args, "q", "nc")
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("parseFlags(%q) error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !maps.Equal(fl, tc.fl) || !slices.Equal(ops, tc.ops) {
			t.Errorf("parseFlags(%q) = %v %q %v, want %v %q", tc.args, fl, ops, err, tc.fl, tc.ops)
		}
	}
}
