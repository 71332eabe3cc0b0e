package looper

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
)

const (
	testBoot = "0f5c2a1e-8d43-4b7e-9a61-3c2b1d0e4f57"
	testProp = "log.looper.10234.main.slow"
)

func TestParseLooperMark(t *testing.T) {
	m, err := parseLooperMark([]byte("boot " + testBoot + "\nprop " + testProp + "\noriginal \"a \\\"b\\\"\"\nowner 00112233aabbccdd 11872.42\r\nowner ffeeddccbbaa9988 12.5\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := looperMark{boot: testBoot, prop: testProp, original: `a "b"`, hasOriginal: true,
		owners: []markOwner{{"00112233aabbccdd", 11872_420_000_000}, {"ffeeddccbbaa9988", 12_500_000_000}}}
	if m.boot != want.boot || m.prop != want.prop || m.original != want.original || !m.hasOriginal || !slices.Equal(m.owners, want.owners) {
		t.Errorf("got %+v\nwant %+v", m, want)
	}
	for _, bad := range []string{
		"original 16",                             // not quoted
		"original \"\"\noriginal \"16\"",          // two originals
		"owner 0011 12.00",                        // not a session id
		"owner 00112233aabbccdd soon",             // not a lease end
		"owner 00112233aabbccdd",                  // no lease end
		"boot a/b",                                // not a boot id
		"perfgate was here",                       // unknown
		"boot " + testBoot + "\nboot " + testBoot, // two boots
	} {
		if _, err := parseLooperMark([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestPlanLooperMark(t *testing.T) {
	const up = int64(5000 * time.Second)
	mark := func(boot string, owners ...string) []byte {
		s := "boot " + boot + "\nprop " + testProp + "\noriginal \"100\"\n"
		for _, o := range owners {
			s += "owner " + o + "\n"
		}
		return []byte(s)
	}
	live, dead := "00112233aabbccdd 5030.00", "ffeeddccbbaa9988 4999.99"
	for _, tc := range []struct {
		name     string
		listing  []byte
		boot     string
		kind     markKind
		original string
		dead     []string
		live     int
		wipe     bool
	}{
		{"none", nil, testBoot, markNew, "16", nil, 0, false},
		{"a live owner and a dead one", mark(testBoot, live, dead), testBoot, markShared, "100", []string{"ffeeddccbbaa9988"}, 1, false},
		{"dead owners only", mark(testBoot, dead), testBoot, markLeftover, "100", []string{"ffeeddccbbaa9988"}, 0, false},
		{"no owner", mark(testBoot), testBoot, markLeftover, "100", nil, 0, false},
		{"another boot", mark("1f5c2a1e-8d43-4b7e-9a61-3c2b1d0e4f57", live), testBoot, markStale, "16", nil, 0, true},
		{"the boot unknown now", mark(testBoot, live), noBootID, markShared, "100", nil, 1, false},
		{"the boot unknown then", mark(noBootID, dead), testBoot, markLeftover, "100", []string{"ffeeddccbbaa9988"}, 0, false},
		{"no original", []byte("boot " + testBoot + "\nowner " + live + "\n"), testBoot, markBad, "16", nil, 0, true},
		{"another property", []byte("boot " + testBoot + "\nprop log.looper.1.main.slow\noriginal \"\"\n"), testBoot, markBad, "16", nil, 0, true},
		{"garbage", []byte("\x00\x01"), testBoot, markBad, "16", nil, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planLooperMark(tc.listing, testProp, tc.boot, up, "16")
			if p.kind != tc.kind || p.original != tc.original || !slices.Equal(p.dead, tc.dead) || p.live != tc.live || p.wipe != tc.wipe {
				t.Errorf("got %+v\nwant kind %d, original %q, dead %q, live %d, wipe %v", p, tc.kind, tc.original, tc.dead, tc.live, tc.wipe)
			}
			if (p.kind == markBad) != (p.why != "") {
				t.Errorf("kind %d with why %q", p.kind, p.why)
			}
		})
	}
}

// The scripts run as written on a phone's shell: a value with quotes,
// spaces and $ goes into the mark and comes back the same, the owners
// come and go, and the last one restores the value and removes the mark.
func TestLooperMarkScriptsOnPhone(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		dev, err := simdevice.New(simdevice.Config{Serial: "sim-scripts"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dev.Close() })
		sh := func(cmd string) (string, string, int) {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var out, errb bytes.Buffer
			st := dev.Shell(ctx, cmd, nil, &out, &errb)
			return out.String(), errb.String(), st
		}
		dir := looperMarkDir(10234, "main")
		listing := looperMarkReadCmds(dir, testProp)[readMark]
		read := func() looperMark {
			t.Helper()
			out, errOut, st := sh(listing)
			m, err := parseLooperMark([]byte(out))
			if st != 0 || err != nil {
				t.Fatalf("%s: exit %d %q: %v", listing, st, errOut, err)
			}
			return m
		}
		if m := read(); m.hasOriginal || len(m.owners) != 0 {
			t.Fatalf("a mark before any: %+v", m)
		}
		value := `it's "x" $HOME \t`
		a, b := newOwnerID(), newOwnerID()
		const up = int64(7000 * time.Second)
		for _, id := range []string{a, b} {
			cmd := looperMarkCmd(dir, testProp, testBoot, id, up+int64(looperLease), markPlan{kind: markNew, original: value})
			if _, errOut, st := sh(cmd); st != 0 {
				t.Fatalf("%s: exit %d: %s", cmd, st, errOut)
			}
		}
		m := read()
		if m.original != value || m.boot != testBoot || m.prop != testProp || len(m.owners) != 2 || m.owners[0].expiryNs != up+int64(looperLease) {
			t.Fatalf("mark %+v", m)
		}
		if _, errOut, st := sh(looperRenewCmd(dir, a, up+2*int64(looperLease))); st != 0 {
			t.Fatalf("renew: exit %d: %s", st, errOut)
		}
		sh("setprop " + testProp + " 16")
		// a goes; b is left, and the release prints the clock and b's line.
		out, errOut, st := sh(looperReleaseCmd(dir, a, testProp, value, nil, true))
		left, why := leftOwners([]byte(out))
		if st != 0 || why != "" || len(left.owners) != 1 || left.owners[0].id != b || left.uptimeNs == 0 {
			t.Fatalf("release of a: exit %d %q %q: %+v %s", st, out, errOut, left, why)
		}
		if v, _ := dev.World().Prop(testProp); v != "16" {
			t.Errorf("the property after the first release: %q, want 16", v)
		}
		// b, the last, restores the value and removes the mark.
		if out, errOut, st := sh(looperReleaseCmd(dir, b, testProp, value, nil, true)); st != 0 || out != "" {
			t.Fatalf("release of b: exit %d %q %q", st, out, errOut)
		}
		if v, _ := dev.World().Prop(testProp); v != value {
			t.Errorf("the property after the last release: %q, want %q", v, value)
		}
		if _, err := dev.Stat(dir); err == nil {
			t.Errorf("%s is still there", dir)
		}
		// A renewal without a mark fails, and says so.
		if _, errOut, st := sh(looperRenewCmd(dir, a, up)); st == 0 || !strings.Contains(errOut, "the mark is gone") {
			t.Errorf("renewal without a mark: exit %d %q", st, errOut)
		}
	})
}

// The cheap lane renews the lease once half of it is spent, not before.
func TestPlanLease(t *testing.T) {
	p := &Property{prop: testProp, hold: looperHold{dir: "/x", id: "00112233aabbccdd", owned: true}}
	h := &p.hold
	const lease = int64(looperLease)
	h.expiryNs = 1000*int64(time.Second) + lease
	var cmds []string
	add := func(cmd string) int { cmds = append(cmds, cmd); return len(cmds) - 1 }
	for _, tc := range []struct {
		up   int64
		want bool
	}{{h.expiryNs - lease, false}, {h.expiryNs - lease/2 - 1, false}, {h.expiryNs - lease/2, true}, {h.expiryNs + 1, true}} {
		h.uptimeNs = tc.up
		cmds = nil
		i := p.PlanLease(add)
		if (i >= 0) != tc.want || tc.want && (h.renewTo != tc.up+lease || !strings.Contains(cmds[i], uptimeText(tc.up+lease))) {
			t.Errorf("uptime %d: renewal %d %q (to %d), want one: %v", tc.up, i, cmds, h.renewTo, tc.want)
		}
	}
	h.lost = "gone"
	if p.PlanLease(add) >= 0 {
		t.Errorf("a lost lease renewed")
	}
}
