// Package looper holds a session's change to the app's Looper
// slow-message property (log.looper.<uid>.main.slow), which makes the
// main thread's Looper log each message that ran longer than the
// threshold: the blocks that delayed frames. The session sets it when it
// starts and restores it at Stop; a mark on the phone (mark.go) lets a
// later session restore it when this one dies first.
//
//	p := looper.New(batch, tickTimeout)
//	out, err := batch(ctx, p.Prepare(uid))
//	p.Set(ctx, out, err, 16, pids, note)
//	// each tick: lease := p.PlanLease(add) … p.AbsorbLease(cmds, out, lease, uptimeNs, note)
//	notes := p.Restore()
package looper

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// Property is a session's hold on the app's Looper property. Set runs
// before the session's lanes; the other methods are safe for concurrent
// use.
type Property struct {
	batch devcmd.Batch
	tick  time.Duration // the session's tick timeout: each restore try's bound

	mu   sync.Mutex
	prop string
	ms   int64
	// old is the value to restore: the one before the first session
	// (the one whose mark it found, or this one) set it.
	old       string
	set       bool // the session set it
	unsure    bool // the round trip that set it failed: it may be set
	restored  bool // Stop undid the change (or tried to)
	why       string
	pidsAtSet []int // processes that were running when it was set
	// hold is the session's mark of the change on the phone (mark.go).
	hold looperHold
}

// New is a hold on no property yet: batch reaches the phone, and
// tickTimeout bounds each try to restore the property (looperRestoreTries).
func New(batch devcmd.Batch, tickTimeout time.Duration) *Property {
	return &Property{batch: batch, tick: tickTimeout}
}

// Leave records why the session leaves the property alone: no blocks are
// measured.
func (p *Property) Leave(why string) { p.why = why }

// Reads is how many commands Prepare returns.
const Reads = markReads

// Prepare names the main-thread property of app uid and returns what Set
// needs read of the phone (Reads commands), for the setup's round trip.
func (p *Property) Prepare(uid int) []string {
	p.prop = logcat.LooperSlowProperty(uid, "main")
	p.hold.dir = looperMarkDir(uid, "main")
	return looperMarkReadCmds(p.hold.dir, p.prop)
}

// Setting is the property and the threshold the session set, ok false
// when it set none.
func (p *Property) Setting() (prop string, ms int64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.prop, p.ms, p.set
}

// Set marks, sets to ms and reads back the property in one round trip,
// from what read (Prepare's commands, or readErr) told of the phone, and
// says why when it did not take. A leftover of an earlier session is
// restored in the same round trip, and noted. pids are the app's
// processes running now.
func (p *Property) Set(ctx context.Context, read []adbx.Result, readErr error, ms int64, pids []int, note devcmd.Note) {
	p.ms = ms
	up := p.readClock(read, readErr)
	if p.why != "" {
		note("%s; blocks are not measured", p.why)
		return
	}
	boot := strings.TrimSpace(string(read[readBootID].Stdout))
	if read[readBootID].ExitCode != 0 || !bootIDPattern.MatchString(boot) {
		boot = noBootID // reboots go unseen; leases still end
	}
	cur := ""
	if read[readProp].ExitCode == 0 {
		cur = strings.TrimSpace(string(read[readProp].Stdout))
	}
	plan := planLooperMark(read[readMark].Stdout, p.prop, boot, up, cur)
	p.old = plan.original
	h := &p.hold
	h.id = newOwnerID()
	h.uptimeNs, h.expiryNs = up, up+int64(looperLease)
	if p.mark(ctx, plan, boot, cur, note) {
		p.taken(pids, note)
	}
}

// readClock is the phone's uptime from read, which the mark's lease is on;
// the mark's listing must be whole too: without either the change could
// not be marked, and it is not made (p.why says so).
func (p *Property) readClock(read []adbx.Result, readErr error) int64 {
	rcmds := looperMarkReadCmds(p.hold.dir, p.prop)
	switch {
	case readErr != nil:
		p.why = fmt.Sprintf("blocks: %s was not set: its mark could not be read: %v", p.prop, readErr)
	case read[readUptime].ExitCode != 0:
		p.why = fmt.Sprintf("blocks: %s was not set: its mark needs the phone's clock: %s", p.prop, devcmd.Failure(read[readUptime], rcmds[readUptime]))
	case read[readMark].ExitCode != 0:
		p.why = fmt.Sprintf("blocks: %s was not set: its mark could not be read: %s", p.prop, devcmd.Failure(read[readMark], rcmds[readMark]))
	default:
		up, err := procfs.ParseUptime(read[readUptime].Stdout)
		if err != nil {
			p.why = fmt.Sprintf("blocks: %s was not set: its mark needs the phone's clock: %s: %v", p.prop, rcmds[readUptime], err)
		}
		return up
	}
	return 0
}

// mark writes the session's mark as plan says, restores a leftover, sets
// the property and reads it back, in one round trip; it reports whether
// the property took.
func (p *Property) mark(ctx context.Context, plan markPlan, boot, cur string, note devcmd.Note) bool {
	h := &p.hold
	val := strconv.FormatInt(p.ms, 10)
	set := "setprop " + adbx.Quote(p.prop) + " " + adbx.Quote(val)
	restore := "setprop " + adbx.Quote(p.prop) + " " + adbx.Quote(plan.original)
	cmds := []string{looperMarkCmd(h.dir, p.prop, boot, h.id, h.expiryNs, plan)}
	iRestore := -1
	if plan.kind == markLeftover && cur != plan.original {
		iRestore = len(cmds)
		cmds = append(cmds, restore)
	}
	cmds = append(cmds, set, "getprop "+adbx.Quote(p.prop))
	iSet := len(cmds) - 2
	out, err := p.batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		// The round trip failed, and what ran of it is unknown: the
		// property may be set and marked, so Stop undoes it all the same
		// (both are undone whether they were made or not).
		p.why = fmt.Sprintf("blocks: %s could not be set: %v", p.prop, err)
		note("%s; blocks are not measured", p.why)
		p.unsure, h.owned = true, true
		return false
	}
	h.owned = out[0].ExitCode == 0
	switch {
	case out[iSet].ExitCode != 0:
		p.why = fmt.Sprintf("blocks: %s could not be set: %s", p.prop, devcmd.Failure(out[iSet], set))
	case strings.TrimSpace(string(out[iSet+1].Stdout)) != val:
		p.why = fmt.Sprintf("blocks: %s did not take: getprop printed %q after %s", p.prop, devcmd.Clip(strings.TrimSpace(string(out[iSet+1].Stdout))), set)
	}
	p.noteMark(plan, boot, cur, out, cmds, iRestore, note)
	if p.why != "" {
		note("%s; blocks are not measured", p.why)
		if h.owned {
			// Nothing of this session's to undo: its owner file goes.
			p.release(p.prop, p.old, val, *h, false, 1)
			h.owned = false
		}
		return false
	}
	if !h.owned {
		note("blocks: the change to %s could not be marked on the phone (%s): Stop restores it, but should this session die before Stop, it stays at %s", p.prop, devcmd.Failure(out[0], cmds[0]), val)
	}
	return true
}

// taken records that the property is set, with the app's processes
// running then (pids): their Looper read it before.
func (p *Property) taken(pids []int, note devcmd.Note) {
	p.mu.Lock()
	p.set = true
	p.pidsAtSet = slices.Clone(pids)
	p.mu.Unlock()
	if len(pids) > 0 {
		note("blocks: the app was running (pids %v) when %s was set to %s; its main Looper reads the property when the process starts, so blocks are measured from the app's next start (a cold launch)", pids, p.prop, strconv.FormatInt(p.ms, 10))
	}
}

// noteMark says what the session found of earlier sessions' marks: a
// leftover restored, a mark of an earlier boot or an unreadable one
// removed, or the property shared with a live session.
func (p *Property) noteMark(m markPlan, boot, cur string, out []adbx.Result, cmds []string, iRestore int, note devcmd.Note) {
	switch m.kind {
	case markLeftover:
		switch {
		case iRestore < 0:
			note("blocks: removed the mark (%s) of an earlier session that ended without removing it; %s was %q, its value before", p.hold.dir, p.prop, cur)
		case out[iRestore].ExitCode != 0:
			note("blocks: %s was left at %s by an earlier session that ended without restoring it; restoring it to %q (its value before) failed: %s", p.prop, cur, m.original, devcmd.Failure(out[iRestore], cmds[iRestore]))
		default:
			note("blocks: %s was left at %s by an earlier session that ended without restoring it; restored to %q (its value before)", p.prop, cur, m.original)
		}
	case markStale:
		note("blocks: removed the mark (%s) of %s left before the phone rebooted (boot id %s, now %s): the reboot reset the property, so nothing was restored", p.hold.dir, p.prop, m.found.boot, boot)
	case markBad:
		note("blocks: replaced the mark %s, which could not be read (%s); %s is restored at Stop to %q, its value now", p.hold.dir, m.why, p.prop, cur)
	case markShared:
		note("blocks: %s is also held by %d other live session(s) on this phone (mark %s); the last of them to stop restores it to %q (its value before the first)", p.prop, m.live, p.hold.dir, m.original)
	}
}

// Restore undoes the session's change to the property: the last session
// holding it restores the value before the first. It runs at Stop and on
// a stop signal, whichever comes first; once is enough. A phone that does
// not answer is tried again (looperRestoreTries), and the mark left tells
// the next session to restore it. It returns the notes to make.
func (p *Property) Restore() []string {
	p.mu.Lock()
	if p.restored || !p.set && !p.hold.owned {
		p.mu.Unlock()
		return nil
	}
	p.restored = true
	prop, old, val, h, set := p.prop, p.old, strconv.FormatInt(p.ms, 10), p.hold, p.set || p.unsure
	p.mu.Unlock()
	return p.release(prop, old, val, h, set, looperRestoreTries)
}

// Why says why a step has no blocks as far as the property tells, "" when
// it may have them: the property was not set, or one of the step's
// processes (stepPIDs) was already running when it was.
func (p *Property) Why(stepPIDs []int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.why != "" {
		return p.why
	}
	for _, pid := range stepPIDs {
		if slices.Contains(p.pidsAtSet, pid) {
			return fmt.Sprintf("blocks: the app's process (pid %d) was already running when %s was set; its main Looper reads the property when it starts: launch the app cold in the session to measure blocks", pid, p.prop)
		}
	}
	return ""
}

// PlanLease adds the lease's renewal to a tick once half of it is spent;
// it returns the command's index, -1 for none.
func (p *Property) PlanLease(add func(string) int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := &p.hold
	if !h.owned || h.lost != "" || p.restored || h.uptimeNs < h.expiryNs-int64(looperLease)/2 {
		return -1
	}
	h.renewTo = h.uptimeNs + int64(looperLease)
	return add(looperRenewCmd(h.dir, h.id, h.renewTo))
}

// AbsorbLease takes a tick's clock (uptimeNs, 0 when unread) and the
// outcome of its renewal: out[lease], run as cmds[lease] (lease < 0 when
// the tick renewed nothing).
func (p *Property) AbsorbLease(cmds []string, out []adbx.Result, lease int, uptimeNs int64, note devcmd.Note) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := &p.hold
	if uptimeNs > 0 {
		h.uptimeNs = uptimeNs
	}
	if lease < 0 {
		return
	}
	res := out[lease]
	if res.ExitCode == 0 {
		h.expiryNs = max(h.expiryNs, h.renewTo)
		return
	}
	why := devcmd.Failure(res, cmds[lease])
	if strings.Contains(string(res.Stderr), "the mark is gone") {
		// Another session took the mark over after this one's lease ran
		// out (a stall longer than half the lease), or it was removed.
		h.lost = why
		note("blocks: %s: the mark of %s is gone (another session took it over after this session's lease ran out, or it was removed): the property may have been restored under this session, and its lease is no longer renewed", why, p.prop)
		return
	}
	note("blocks: the lease on the mark of %s could not be renewed: %s", p.prop, why)
}

// release undoes the session's change to the property at its end:
// through the mark when it holds one, else by setting the value back;
// set says the session set the property (else it only removes its owner
// file). It tries up to tries times, each with its own deadline, and
// returns the notes to make.
func (p *Property) release(prop, original, val string, h looperHold, set bool, tries int) []string {
	tick := p.tick
	began := time.Now()
	var last string
	var dead []string
	for try, pass := 1, 1; ; {
		cmd := "setprop " + adbx.Quote(prop) + " " + adbx.Quote(original)
		if h.owned {
			cmd = looperReleaseCmd(h.dir, h.id, prop, original, dead, set)
		}
		ctx, cancel := context.WithTimeout(context.Background(), tick+tick/2)
		out, err := p.batch(ctx, []string{cmd})
		cancel()
		if err == nil && len(out) != 1 {
			err = fmt.Errorf("batch of 1 command returned %d results", len(out))
		}
		switch {
		case err != nil:
			last = err.Error() // it names the command
		case out[0].ExitCode != 0:
			last = devcmd.Failure(out[0], cmd)
		case !h.owned || len(strings.TrimSpace(string(out[0].Stdout))) == 0:
			return nil // restored (or, never set, the mark removed)
		default:
			// Other owners are left: the property stays for them, unless
			// every one of their leases ran out (they died): their files
			// go in a second pass.
			left, why := leftOwners(out[0].Stdout)
			live := 0
			dead = dead[:0]
			for _, o := range left.owners {
				if o.expiryNs > left.uptimeNs {
					live++
				} else {
					dead = append(dead, o.id)
				}
			}
			switch {
			case !set:
				return nil
			case why != "":
				return []string{fmt.Sprintf("blocks: %s left at %s: the owners left in its mark %s could not be read (%s); the next session restores it once their leases ran out", prop, val, h.dir, why)}
			case live > 0:
				return []string{fmt.Sprintf("blocks: %s stays at %s for %d other session(s) on this phone; the last of them to stop restores it to %q (its value before)", prop, val, live, original)}
			case pass > 1:
				return []string{fmt.Sprintf("blocks: %s left at %s: the owner files of dead sessions (%s) could not be removed from its mark %s; the next session restores it", prop, val, strings.Join(dead, ", "), h.dir)}
			}
			pass++
			continue
		}
		if try >= tries {
			break
		}
		try++
		time.Sleep(tick / 2)
	}
	if !set {
		return nil // nothing changed; an owner file left behind is harmless
	}
	spent := time.Since(began).Round(100 * time.Millisecond)
	if h.owned {
		return []string{fmt.Sprintf("blocks: %s could not be restored to %q (%d tries over %v; the last: %s): it stays at %s on the phone, marked in %s; the next session on this phone restores it once this session's lease has run out (%v after its last renewal)",
			prop, original, tries, spent, last, val, h.dir, looperLease)}
	}
	return []string{fmt.Sprintf("blocks: %s could not be restored to %q (%d tries over %v; the last: %s): it stays at %s on the phone, unmarked (its mark could not be written)",
		prop, original, tries, spent, last, val)}
}
