package readlog

import "testing"

// A source that failed every read is explained by the device's last
// answer, not by a tick it did not answer in time; those ticks are
// counted beside it, and quoted only when the device answered none.
func TestUnreadableQuotesTheDevice(t *testing.T) {
	denied := Read{HostNs: 1, Err: "cat /proc/1/net/dev: exit status 1: No such file or directory"}
	timeout := Read{HostNs: 2, Err: "the whole tick failed: timeout", Tick: true}
	for _, tc := range []struct {
		rs   []Read
		want string
	}{
		{[]Read{denied, denied, timeout},
			"net unreadable on every read in the step (3 failed; last: cat /proc/1/net/dev: exit status 1: No such file or directory; 1 of them in ticks that failed as a whole)"},
		{[]Read{denied, denied}, "net unreadable on every read in the step (2 failed; last: cat /proc/1/net/dev: exit status 1: No such file or directory)"},
		{[]Read{timeout, timeout}, "net unreadable on every read in the step (2 failed; last: the whole tick failed: timeout)"},
		{[]Read{denied, {HostNs: 3}}, ""},
		{nil, ""},
	} {
		if got := Unreadable("net", tc.rs); got != tc.want {
			t.Errorf("Unreadable(%v)\n got %q\nwant %q", tc.rs, got, tc.want)
		}
	}
}
