package devicepool

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// A Path is one way to reach a device: the adb server and the serial it
// lists the device under.
type Path struct {
	Server string
	Serial string
}

// String names the path as errors and the pool's notes do: "sim-3 on
// 127.0.0.1:5037".
func (p Path) String() string { return p.Serial + " on " + p.Server }

// TCP reports whether the serial names a phone adb reaches over the
// network: "host:port" (`adb connect`, a device farm's endpoint) or a
// wireless-debugging service name ("adb-…._adb-tls-connect._tcp"). Any
// other serial is taken for a phone on USB, or an emulator's own
// transport, which a phone on both is better leased through.
func (p Path) TCP() bool {
	if strings.HasSuffix(p.Serial, "._tcp") || strings.HasSuffix(p.Serial, "._tcp.") {
		return true
	}
	host, port, err := net.SplitHostPort(p.Serial)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n <= 65535
}

// Identity tells one phone from another whatever path reaches it: the
// kernel's boot id (/proc/sys/kernel/random/boot_id, a random UUID the
// kernel makes at each boot) and ro.serialno. Two paths that give one
// Identity reach one phone: one phone on two adb servers, or on USB and
// over TCP at once.
type Identity struct {
	BootID   string
	SerialNo string
}

// String is "boot id 1b4e…, ro.serialno sim-3".
func (id Identity) String() string {
	s := "boot id " + id.BootID
	if id.SerialNo != "" {
		s += ", ro.serialno " + id.SerialNo
	}
	return s
}

// identityCmds read a phone's Identity in one round trip.
var identityCmds = []string{"cat /proc/sys/kernel/random/boot_id", "getprop ro.serialno"}

// bootIDPattern is what a boot id may hold: a UUID, or anything as tame.
var bootIDPattern = regexp.MustCompile(`^[0-9A-Za-z-]{1,64}$`)

// readIdentity reads the identity of the phone m reaches. An error says
// why there is none; the phone is then taken for one of its own.
func readIdentity(ctx context.Context, m *Member) (Identity, error) {
	rs, err := m.Batch(ctx, identityCmds)
	if err != nil {
		return Identity{}, err
	}
	if len(rs) != len(identityCmds) {
		return Identity{}, fmt.Errorf("got %d results for %d commands", len(rs), len(identityCmds))
	}
	if err := rs[0].Err(identityCmds[0]); err != nil {
		return Identity{}, err
	}
	boot := strings.TrimSpace(string(rs[0].Stdout))
	if !bootIDPattern.MatchString(boot) {
		return Identity{}, fmt.Errorf("%s printed %s, not a boot id", identityCmds[0], excerpt.Quote(boot))
	}
	var serialNo string
	if rs[1].ExitCode == 0 {
		serialNo = strings.TrimSpace(string(rs[1].Stdout))
	}
	return Identity{BootID: boot, SerialNo: serialNo}, nil
}

// samePhones keeps one path to each phone among slots (in the order New
// found them: by server as Config.Servers lists them, then as each server
// lists its devices): the first not over TCP, else the first. It records
// the paths left out in the kept Member's Others, and returns the slots
// kept and a note for each phone reached more than once. Slots whose
// identity is unknown are kept as they are.
func samePhones(slots []*slot, servers []string) (kept []*slot, notes []string) {
	groups := map[Identity][]*slot{}
	var ids []Identity // in the order New found the phones
	for _, s := range slots {
		if id := s.m.Identity; id.BootID != "" {
			if groups[id] == nil {
				ids = append(ids, id)
			}
			groups[id] = append(groups[id], s)
		}
	}
	rank := func(server string) int { return slices.Index(servers, server) }
	left := map[*slot]bool{}
	for _, id := range ids {
		g := groups[id]
		if len(g) == 1 {
			continue
		}
		pick := g[0]
		if i := slices.IndexFunc(g, func(x *slot) bool { return !x.m.path().TCP() }); i >= 0 {
			pick = g[i]
		}
		var paths, why []string
		for _, x := range g {
			paths = append(paths, x.m.path().String())
			if x == pick {
				continue
			}
			left[x] = true
			pick.m.Others = append(pick.m.Others, x.m.path())
			switch {
			case x.m.path().TCP() && !pick.m.path().TCP():
				why = appendOnce(why, "USB, not TCP")
			case rank(x.m.Server()) > rank(pick.m.Server()):
				why = appendOnce(why, "the first server listed")
			default:
				why = appendOnce(why, "listed first by its server")
			}
		}
		notes = append(notes, fmt.Sprintf("one phone: %s; leased as %s (%s)", strings.Join(paths, ", "), pick.m.path(), strings.Join(why, "; ")))
	}
	for _, s := range slots {
		if !left[s] {
			kept = append(kept, s)
		}
	}
	return kept, notes
}

// appendOnce appends s to list unless it holds it.
func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
