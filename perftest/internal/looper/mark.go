package looper

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// The Looper property is the one change a session makes to the phone's
// own state, and a session can end without undoing it: killed (SIGKILL,
// os.Exit, a panic in a goroutine, go test's -timeout), or with the phone
// not answering at Stop. The phone itself then keeps the record of it, so
// that a later session finds it, undoes it and says so: before it sets the
// property a session writes a mark of it under /data/local/tmp, where the
// shell may always write, and it removes the mark when it restores the
// property.
//
// The mark is a folder, /data/local/tmp/perfgate/looper.<uid>.<thread>:
//
//	original           boot <boot id>
//	                   prop log.looper.<uid>.<thread>.slow
//	                   original "<the value before the first session set it>"
//	owner.<session id> owner <session id> <lease end>
//
// one owner file per session that holds the property, its lease's end on
// the phone's /proc/uptime clock (seconds since boot, which runs in deep
// sleep and never steps), renewed by the cheap lane (looperLease). The
// boot id (/proc/sys/kernel/random/boot_id) tells a mark of this boot from
// one left before a reboot, which reset the property and whose lease ends
// mean nothing on the new clock. Each session writes and removes only its
// own owner file, so sessions sharing the phone never rewrite each
// other's lines; `cat` of the folder's files reads the mark whole.
//
// A session that finds a mark when it starts:
//   - of another boot: removes it (nothing to restore);
//   - with a live lease: shares the property, taking the original value
//     from the mark (the property holds the other session's threshold);
//   - whose leases all ran out: the sessions died; it restores the original
//     from the mark, says so in a note, and takes the mark over;
//   - unreadable: replaces it, the value it finds taken as the original.
//
// At Stop a session removes its owner file, and the last owner (no live
// lease left) restores the original and removes the mark.

// looperMarkRoot is the folder of the marks perfgate leaves on a phone.
const looperMarkRoot = "/data/local/tmp/perfgate"

// looperLease is how long a session's owner file holds the mark after its
// last renewal. The cheap lane renews it once half of it is spent, so a
// live session's lease runs out only after more than 30 s without a
// successful tick: longer than a phone or host stall a session survives
// (it ends once its ticks failed for Config.GiveUpAfter, default 10 s),
// short enough that the next session after a killed one seldom has to
// share the property with a dead one. A session that starts within a dead
// session's lease shares the property; the first one after it restores.
const looperLease = 60 * time.Second

// looperRestoreTries is how many times Stop tries to restore the property
// before it leaves it to the next session; each try may take 1.5 ×
// Config.TickTimeout, with half a TickTimeout between tries (about 10 s in
// all by default).
const looperRestoreTries = 3

// looperHold is a session's claim on the mark of its Looper property.
type looperHold struct {
	dir   string // the mark's folder on the phone
	id    string // this session's owner id
	owned bool   // the phone holds this session's owner file
	// expiryNs is the lease's end and uptimeNs the phone's last
	// /proc/uptime the session read, both ns since boot; renewTo is the
	// end the renewal in flight writes.
	expiryNs, uptimeNs, renewTo int64
	// lost says why the lease is no longer renewed ("" while it is).
	lost string
}

// looperMarkDir is the mark of thread's Looper property of app uid.
func looperMarkDir(uid int, thread string) string {
	return looperMarkRoot + "/looper." + strconv.Itoa(uid) + "." + thread
}

// newOwnerID is a session's owner id: 16 random hex digits.
func newOwnerID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// looperMark is a mark as read from the phone.
type looperMark struct {
	boot, prop, original string
	hasOriginal          bool
	owners               []markOwner
}

// markOwner is one session's owner line.
type markOwner struct {
	id       string
	expiryNs int64
}

var (
	ownerIDPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)
	bootIDPattern  = regexp.MustCompile(`^[0-9A-Za-z-]{1,64}$`)
)

// noBootID stands for a boot id the phone did not give; it matches no
// other.
const noBootID = "-"

// parseLooperMark reads the lines of a mark (its files concatenated).
// Anything it does not know makes the mark unreadable.
func parseLooperMark(b []byte) (looperMark, error) {
	var m looperMark
	seen := map[string]bool{}
	for i, line := range strings.Split(string(devtext.Normalize(b)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		bad := func(why string) (looperMark, error) {
			return looperMark{}, fmt.Errorf("line %d %q: %s", i+1, devcmd.Clip(line), why)
		}
		key, rest, _ := strings.Cut(line, " ")
		if key != "owner" {
			if seen[key] {
				return bad("a second " + key)
			}
			seen[key] = true
		}
		switch key {
		case "boot":
			if rest != noBootID && !bootIDPattern.MatchString(rest) {
				return bad("not a boot id")
			}
			m.boot = rest
		case "prop":
			m.prop = rest
		case "original":
			v, err := strconv.Unquote(rest)
			if err != nil || strings.ContainsAny(v, "\n\x00") {
				return bad("not a quoted value")
			}
			m.original, m.hasOriginal = v, true
		case "owner":
			f := strings.Fields(rest)
			if len(f) != 2 || !ownerIDPattern.MatchString(f[0]) {
				return bad("want owner <16 hex digits> <lease end>")
			}
			ns, err := procfs.ParseUptime([]byte(f[1]))
			if err != nil {
				return bad("not a lease end in seconds since boot")
			}
			m.owners = append(m.owners, markOwner{id: f[0], expiryNs: ns})
		default:
			return bad("unknown line")
		}
	}
	return m, nil
}

// markKind is what a session found where it marks the property.
type markKind int

const (
	markNew      markKind = iota // no mark: the property is as the phone has it
	markShared                   // another live session holds the property
	markLeftover                 // every owner's lease ran out: a leftover
	markStale                    // a mark of an earlier boot
	markBad                      // a mark that could not be read
)

// markPlan is how a session takes the mark it found.
type markPlan struct {
	kind     markKind
	original string   // the value to restore at the end
	dead     []string // owners whose lease ran out
	live     int      // other sessions' live leases
	wipe     bool     // remove the mark before writing one's own
	found    looperMark
	why      string // why markBad
}

// planLooperMark decides, from the mark's lines (listing), the phone's
// boot id and uptime, what the property's value before the sessions was
// and what to do with the mark. cur is the property's value now.
func planLooperMark(listing []byte, prop, boot string, uptimeNs int64, cur string) markPlan {
	if strings.TrimSpace(string(listing)) == "" {
		return markPlan{kind: markNew, original: cur}
	}
	m, err := parseLooperMark(listing)
	switch {
	case err != nil:
		return markPlan{kind: markBad, original: cur, wipe: true, why: err.Error()}
	case !m.hasOriginal:
		return markPlan{kind: markBad, original: cur, wipe: true, why: "it holds no original value", found: m}
	case m.prop != prop:
		return markPlan{kind: markBad, original: cur, wipe: true, why: fmt.Sprintf("it marks %q", m.prop), found: m}
	case m.boot != boot && m.boot != noBootID && boot != noBootID:
		return markPlan{kind: markStale, original: cur, wipe: true, found: m}
	}
	p := markPlan{kind: markLeftover, original: m.original, found: m}
	for _, o := range m.owners {
		if o.expiryNs > uptimeNs {
			p.live++
		} else {
			p.dead = append(p.dead, o.id)
		}
	}
	if p.live > 0 {
		p.kind = markShared
	}
	return p
}

// uptimeText is ns since boot as /proc/uptime prints it.
func uptimeText(ns int64) string {
	return fmt.Sprintf("%d.%02d", ns/int64(time.Second), ns%int64(time.Second)/int64(10*time.Millisecond))
}

// The commands of looperMarkReadCmds, in order.
const (
	readBootID = iota
	readUptime
	readProp
	readMark
	markReads // how many
)

// looperMarkReadCmds read what taking the mark needs: the boot id, the
// clock, the property and then the mark (in that order: a mark missing
// after the property was read was not there when another session set it,
// since sessions write their mark before they set the property).
func looperMarkReadCmds(dir, prop string) []string {
	return []string{
		"cat /proc/sys/kernel/random/boot_id",
		"cat /proc/uptime",
		"getprop " + adbx.Quote(prop),
		"d=" + adbx.Quote(dir) + `; for f in "$d"/*; do if [ -f "$f" ]; then cat "$f"; fi; done`,
	}
}

// ownerLine is a session's owner file.
func ownerLine(id string, expiryNs int64) string {
	return "printf 'owner %s %s\\n' " + id + " " + uptimeText(expiryNs) + ` > "$d/owner.` + id + `"`
}

// looperMarkCmd writes the session's mark as p says: the original file
// unless one is there (another session's, written since it was read,
// holds the same value), then the session's owner file.
func looperMarkCmd(dir, prop, boot, id string, expiryNs int64, p markPlan) string {
	var b strings.Builder
	b.WriteString("d=" + adbx.Quote(dir) + "; ")
	if p.wipe {
		b.WriteString(`rm -rf "$d"; `)
	}
	if len(p.dead) > 0 {
		b.WriteString("rm -f")
		for _, o := range p.dead {
			b.WriteString(` "$d/owner.` + o + `"`)
		}
		b.WriteString("; ")
	}
	b.WriteString(`mkdir -p "$d" && { [ -f "$d/original" ] || printf 'boot %s\nprop %s\noriginal %s\n' `)
	b.WriteString(adbx.Quote(boot) + " " + adbx.Quote(prop) + " " + adbx.Quote(strconv.Quote(p.original)))
	b.WriteString(` > "$d/original"; } && ` + ownerLine(id, expiryNs))
	return b.String()
}

// looperRenewCmd renews the session's lease, failing when the mark is gone.
func looperRenewCmd(dir, id string, expiryNs int64) string {
	return "d=" + adbx.Quote(dir) + `; if [ -f "$d/original" ]; then ` + ownerLine(id, expiryNs) +
		`; else echo "$d: the mark is gone" >&2; exit 1; fi`
}

// looperReleaseCmd removes the session's owner file (and those of dead
// sessions); when no owner is left it restores the property (unless
// restore is false: it was never set) and removes the mark, else it prints
// the clock and the owners left. The check and the restore run in one
// shell, so a session that joins meanwhile is seen.
func looperReleaseCmd(dir, id, prop, original string, dead []string, restore bool) string {
	var b strings.Builder
	b.WriteString("d=" + adbx.Quote(dir) + `; rm -f "$d/owner.` + id + `"`)
	for _, o := range dead {
		b.WriteString(` "$d/owner.` + o + `"`)
	}
	b.WriteString(`; set -- "$d"/owner.*; if [ -e "$1" ]; then cat /proc/uptime "$@"; else `)
	if restore {
		b.WriteString("setprop " + adbx.Quote(prop) + " " + adbx.Quote(original) + " && ")
	}
	b.WriteString(`rm -rf "$d"; fi`)
	return b.String()
}

// markLeft is what a release printed when other owners were left: the
// phone's clock, then their owner lines.
type markLeft struct {
	uptimeNs int64
	owners   []markOwner
}

func leftOwners(b []byte) (markLeft, string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(string(devtext.Normalize(b))), "\n")
	up, err := procfs.ParseUptime([]byte(first))
	if err != nil {
		return markLeft{}, err.Error()
	}
	m, err := parseLooperMark([]byte(rest))
	if err != nil {
		return markLeft{}, err.Error()
	}
	if m.hasOriginal || m.boot != "" || len(m.owners) == 0 {
		return markLeft{}, "want the owner lines alone"
	}
	return markLeft{uptimeNs: up, owners: m.owners}, ""
}
