package devicepool_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/simlab"
)

func TestPathTCP(t *testing.T) {
	for serial, want := range map[string]bool{
		"R58M123ABC":       false,
		"emulator-5554":    false,
		"sim-3":            false,
		"10.0.0.7:5555":    true,
		"127.0.0.1:40123":  true,
		"[fe80::1]:5555":   true,
		"stf.example:7401": true,
		"adb-R58M123ABC-x7Yz._adb-tls-connect._tcp": true,
		"host:port":   false,
		":5555":       false,
		"10.0.0.7:0":  false,
		"a:b:c:5555":  false,
		"usb:1-1.4:1": false,
	} {
		if got := (devicepool.Path{Server: "127.0.0.1:5037", Serial: serial}).TCP(); got != want {
			t.Errorf("Path{Serial: %q}.TCP() = %v, want %v", serial, got, want)
		}
	}
}

// TestOnePhoneTwoPaths: a phone two servers list under one serial, and one
// listed on USB and over TCP, are each one member, reached through USB or
// else the first server listed, with the other paths in Others and a note
// naming them all; each is leased once. A phone whose boot id cannot be
// read cannot be told for the same: it stays a member per path, and a
// note says so.
func TestOnePhoneTwoPaths(t *testing.T) {
	lab := simlab.Start(t, simlab.Lab{Phones: []simlab.Phone{
		{Model: "Pixel 8", API: 34},
		{Model: "Pixel 4a", API: 30, Server: simlab.ServerADB},
		{Model: "Pixel 7", API: 33, Quirks: &simlab.Quirks{MissingFiles: []string{"/proc/sys/kernel/random/boot_id"}}},
	}})
	p8, p4a, p7 := lab.Phones[0], lab.Phones[1], lab.Phones[2]
	second := adbtest.NewServer(p8.Dev, p4a.Dev, p7.Dev)
	t.Cleanup(second.Close)
	// The stock adb server, which lists the Pixel 4a over TCP, first.
	servers := []string{p4a.Server, p8.Server, second.Addr}
	p, err := devicepool.New(context.Background(), devicepool.Config{Servers: servers})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	others := map[string][]devicepool.Path{}
	for _, m := range p.Members() {
		got = append(got, m.Serial()+" on "+m.Server())
		others[m.Serial()+" on "+m.Server()] = m.Others
	}
	want := []string{
		p8.Serial + " on " + p8.Server,          // the first server listed
		p7.Serial + " on " + p7.Server,          // no boot id: both paths stay
		p4a.Dev.Serial() + " on " + second.Addr, // USB, not TCP
		p7.Serial + " on " + second.Addr,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("members %q, want %q", got, want)
	}
	if o := others[want[0]]; !slices.Equal(o, []devicepool.Path{{Server: second.Addr, Serial: p8.Serial}}) {
		t.Errorf("Pixel 8's other paths: %v", o)
	}
	if o := others[want[2]]; !slices.Equal(o, []devicepool.Path{{Server: p4a.Server, Serial: p4a.Serial}}) {
		t.Errorf("Pixel 4a's other paths: %v", o)
	}
	if o := others[want[1]]; len(o) != 0 {
		t.Errorf("Pixel 7's other paths: %v", o)
	}
	notes := strings.Join(p.Notes(), "\n")
	for _, w := range []string{
		"one phone: " + p4a.Serial + " on " + p4a.Server + ", " + p4a.Dev.Serial() + " on " + second.Addr + "; leased as " + want[2] + " (USB, not TCP)",
		"one phone: " + want[0] + ", " + p8.Serial + " on " + second.Addr + "; leased as " + want[0] + " (the first server listed)",
		p7.Serial + " on " + p7.Server + ": identity not read (cat /proc/sys/kernel/random/boot_id: exit status 1",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	// Two tests at once that want a Pixel 8 or a Pixel 4a: the first gets
	// one, the second the other, never the first's phone again.
	ctx := context.Background()
	a, err := p.Acquire(ctx, "TestA", func(m *devicepool.Member) bool { return m.Facts.API != 33 })
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Acquire(ctx, "TestB", func(m *devicepool.Member) bool { return m.Facts.API != 33 })
	if err != nil {
		t.Fatal(err)
	}
	if a.Identity == b.Identity || a.Identity.BootID == "" || b.Identity.SerialNo == "" {
		t.Errorf("leased %s (%v) and %s (%v)", a, a.Identity, b, b.Identity)
	}
	for _, m := range []*devicepool.Member{a, b} {
		if err := p.Release(m); err != nil {
			t.Error(err)
		}
	}
}
