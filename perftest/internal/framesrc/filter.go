package framesrc

import (
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/gfxinfo"
)

// The framestats filter. A dump holds each window's last 120 frames, and
// most of them were taken by the polls before: at 120 Hz a tick 100 ms
// after the last one has 12 new rows of 120. So once the source knows a
// window's columns, the dump goes through `grep -E` on the device, which
// keeps the lines the parser needs to place rows (clock, process, window,
// PROFILEDATA markers and header), the rows whose IntendedVsync is at least
// the smallest of the windows' newest Flags-0 vsyncs shown so far, and every
// row of the vsyncs still drawing that the rejection rule waits for, which
// come back until they complete or are given up on. The frames of a window
// complete in vsync order, so every frame not shown yet is among them, and
// so is the animation row (Flags ≠ 0) that shares a vsync with the newest
// frame or with one still drawing, which a phone may print a poll after the
// frame's own row: the Result counts it as rejected, as a whole dump would.
// What a whole dump would add is a frame that completed below the last
// vsync taken without having been seen drawing (rejected anyway). A window
// with no Flags-0 row yet keeps rows from its newest vsync on. Where grep is
// missing or fails the source polls whole dumps.

// gfxFilterRecent is how many dumps a window stays in the filter's bound
// after the last dump that showed it.
const gfxFilterRecent = 20

// gfxFilterMaxPending bounds the rows still drawing the filter names one by
// one; past it, whole dumps are polled until they resolve.
const gfxFilterMaxPending = 32

// gfxKeepLines are the lines of a dump besides rows that the parser reads.
// Every branch of the pattern is anchored at the line's start, so a row
// that is not kept fails within its first fields.
const gfxKeepLines = ` *(Uptime:|\*\* Graphics info|No process found|Failure while dumping|Permission Denial|Can't find service|Profile data in ms:|View hierarchy:|Window:|---PROFILEDATA---|Flags,)|[^,]*ViewRootImpl@`

// gfxFilter is the grep pattern for the next frames poll, "" for a whole
// dump.
func (s *Source) gfxFilter() string {
	if s.gfxFilterOff || s.gfxVsyncCol < 1 || len(s.gfxWin) == 0 {
		return ""
	}
	from := int64(0)
	var pending []int64
	for _, st := range s.gfxWin {
		if s.frameDumps-st.seenAt > gfxFilterRecent {
			continue
		}
		b := st.seenMax
		if st.seenUI > 0 {
			b = st.seenUI
		}
		if b <= 0 {
			return ""
		}
		if from == 0 || b < from {
			from = b
		}
		for pk := range st.pending {
			pending = append(pending, pk.intended)
		}
	}
	if from <= 0 || len(pending) > gfxFilterMaxPending {
		return ""
	}
	return gfxFilterPattern(s.gfxVsyncCol, from, pending)
}

// gfxFilterPattern is the extended regular expression that keeps the
// parser's lines and the rows whose column vsyncCol (0-based) holds an
// integer ≥ from or one of pending, whatever their flags.
func gfxFilterPattern(vsyncCol int, from int64, pending []int64) string {
	pat := gfxKeepLines + "|([^,]*,){" + strconv.Itoa(vsyncCol) + "}(" + intAbove(from-1) + "),"
	if len(pending) > 0 {
		slices.Sort(pending)
		pending = slices.Compact(pending)
		alts := make([]string, len(pending))
		for i, v := range pending {
			alts[i] = strconv.FormatInt(v, 10)
		}
		pat += "|([^,]*,){" + strconv.Itoa(vsyncCol) + "}(" + strings.Join(alts, "|") + "),"
	}
	return "^(" + pat + ")"
}

// intAbove is an extended regular expression matching the decimal
// integers (no sign, no leading zeros) greater than t ≥ 0.
func intAbove(t int64) string {
	d := strconv.FormatInt(max(t, 0), 10)
	n := len(d)
	alts := []string{"[1-9][0-9]{" + strconv.Itoa(n) + ",}"}
	for i := 0; i < n; i++ {
		if d[i] == '9' {
			continue
		}
		lo := d[i] + 1
		if i == 0 && n > 1 && lo == '0' {
			lo = '1'
		}
		a := d[:i] + "[" + string(lo) + "-9]"
		if rest := n - i - 1; rest > 0 {
			a += "[0-9]{" + strconv.Itoa(rest) + "}"
		}
		alts = append(alts, a)
	}
	return strings.Join(alts, "|")
}

// learnGfxColumns notes where IntendedVsync sits in a dump's header, so
// later polls can be filtered; a header without Flags first is never
// filtered.
func (s *Source) learnGfxColumns(t *gfxinfo.FrameTable) {
	if s.gfxVsyncCol != 0 || len(t.Columns) == 0 {
		return
	}
	s.gfxVsyncCol = -1
	if t.Columns[0] != "Flags" {
		return
	}
	if i := slices.Index(t.Columns, "IntendedVsync"); i > 0 {
		s.gfxVsyncCol = i
	}
}
