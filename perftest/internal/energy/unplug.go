package energy

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
)

// What the unplug option leaves on a phone, and how a later session finds
// it. A session that unplugs the battery makes a mark,
// /data/local/tmp/perfgate-unplug-<16 hex digits>, touched by every read
// of its lane, and removes it once Stop reset the battery. A mark nobody
// touched for devcmd.LeftoverGrace is a dead session's: the next session
// on the phone runs `dumpsys battery reset` and removes it, with a note.

// markFile matches the marks of perfgate's sessions.
var markFile = regexp.MustCompile(`^` + devcmd.TmpDir + `/perfgate-unplug-[0-9a-f]{16}$`)

// leftoverListing lists the phone's clock and the unplug marks.
func leftoverListing() []string {
	return []string{
		"date +%s",
		"for f in " + devcmd.TmpDir + "/perfgate-unplug-*; do [ -f \"$f\" ] && stat -c '%Y %n' \"$f\"; done; true",
	}
}

// resetLeftovers resets the battery when out (leftoverListing's output)
// shows a mark older than devcmd.LeftoverGrace.
func (l *Lane) resetLeftovers(ctx context.Context, out []adbx.Result) {
	if len(out) != 2 || out[0].ExitCode != 0 || out[1].ExitCode != 0 {
		return
	}
	now, err := strconv.ParseInt(strings.TrimSpace(string(out[0].Stdout)), 10, 64)
	if err != nil {
		return
	}
	var dead []string
	for _, ln := range strings.Split(string(out[1].Stdout), "\n") {
		ts, path, ok := strings.Cut(strings.TrimSpace(ln), " ")
		t, err := strconv.ParseInt(ts, 10, 64)
		if !ok || err != nil || !markFile.MatchString(path) {
			continue
		}
		if age := time.Duration(now-t) * time.Second; age >= devcmd.LeftoverGrace {
			dead = append(dead, path)
		}
	}
	if len(dead) == 0 {
		return
	}
	cmds := []string{"dumpsys battery reset", "rm -f " + strings.Join(dead, " ")}
	res, err := l.env.Batch(ctx, cmds)
	switch {
	case err != nil:
		l.noteLocked(fmt.Sprintf("battery: a session that died left the battery unplugged (%s); resetting it failed: %v", strings.Join(dead, ", "), err))
	case res[0].ExitCode != 0:
		l.noteLocked(fmt.Sprintf("battery: a session that died left the battery unplugged (%s); %s", strings.Join(dead, ", "), devcmd.Failure(res[0], cmds[0])))
	default:
		l.noteLocked(fmt.Sprintf("battery: a session that died left the battery unplugged (%s, untouched for %v or more); reset it (dumpsys battery reset)", strings.Join(dead, ", "), devcmd.LeftoverGrace))
	}
}

// unplug runs `dumpsys battery unplug` and makes the session's mark.
func (l *Lane) unplug(ctx context.Context) {
	mark := markerName()
	cmds := []string{"touch " + adbx.Quote(mark), "dumpsys battery unplug"}
	res, err := l.env.Batch(ctx, cmds)
	switch {
	case err != nil || len(res) != 2:
		l.noteLocked(fmt.Sprintf("battery: dumpsys battery unplug failed: %v; the phone stays as it was", err))
		l.marker = mark // it may have run: Stop resets
	case res[1].ExitCode != 0:
		l.noteLocked("battery: " + devcmd.Failure(res[1], cmds[1]) + "; the phone stays as it was")
		l.env.Batch(ctx, []string{"rm -f " + adbx.Quote(mark)})
	default:
		l.marker = mark
		l.noteLocked("battery: unplugged for the session (dumpsys battery unplug; reset at Stop): BatteryService and the apps see the phone on its battery; a charger still charges it, which the kernel's status shows")
	}
}

// reset undoes unplug, at Stop.
func (l *Lane) reset() {
	l.mu.Lock()
	mark := l.marker
	l.mu.Unlock()
	if mark == "" {
		return
	}
	cmds := []string{"dumpsys battery reset", "rm -f " + adbx.Quote(mark)}
	for try := 0; try < 2; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), l.env.Timeout)
		res, err := l.env.Batch(ctx, cmds)
		cancel()
		l.mu.Lock()
		if err == nil && len(res) == 2 && res[0].ExitCode == 0 {
			l.marker = ""
			l.noteLocked("battery: reset at Stop (dumpsys battery reset)")
			l.mu.Unlock()
			return
		}
		if try == 1 {
			l.noteLocked(fmt.Sprintf("battery: dumpsys battery reset failed at Stop (%v): the phone still says unplugged; the next session resets it once %s is %v old, or run `adb shell dumpsys battery reset`", err, mark, devcmd.LeftoverGrace))
		}
		l.mu.Unlock()
	}
}
