package simdevice

import (
	"cmp"
	"slices"

	"github.com/perfgate/perfgate/trace/tracewriter"
)

// namedTrack is the named track a section written as Android 14's async
// markers is on: the main thread's sections on one, a worker's on
// another, both in the app's process.
func namedTrack(s TruthSection) string {
	if s.Depth < 3 { // a worker's (see frameSections)
		return "bg-work"
	}
	return "ui-work"
}

// dsTrackEvent is the data source of the Perfetto SDK's TrackEvent.
const dsTrackEvent = "track_event"

// teEvent is one TrackEvent slice begin or end of a thread.
type teEvent struct {
	ts    int64 // boottime
	begin bool
	name  string
	depth int
}

// trackEventSections writes the sections of the frames the trace holds
// that the app writes as TrackEvent slices, as the Perfetto SDK does: a
// track per thread, described once; each thread's events on a sequence
// of its own, names interned per sequence (so one iid names different
// sections on different threads), the sequence's incremental state
// cleared every few events and the names interned anew in another order,
// the default track used for some events and named for others.
func (j *traceJob) trackEventSections(w *tracewriter.Writer, frames []TruthFrame) {
	if !j.sources[dsTrackEvent] {
		return
	}
	per := map[int32][]teEvent{}
	pids := map[int32]int32{}
	for i := range frames {
		f := &frames[i]
		if f.IntendedVsync < j.start || f.IntendedVsync >= j.end || f.Window != j.window || f.Completed > j.end {
			continue
		}
		for _, s := range f.Sections {
			if s.Emit == EmitTrackEvent {
				pids[s.TID] = int32(f.Pid)
				per[s.TID] = append(per[s.TID], teEvent{ts: s.StartNs + j.bootOffset, begin: true, name: s.Name, depth: s.Depth},
					teEvent{ts: s.EndNs + j.bootOffset, depth: s.Depth})
			}
		}
	}
	tids := make([]int32, 0, len(per))
	for tid := range per {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	defer func(seq uint32) { w.Sequence = seq }(w.Sequence)
	for _, tid := range tids {
		evs := per[tid]
		// Ends before begins at one time, inner ends first, outer begins
		// first.
		slices.SortStableFunc(evs, func(a, b teEvent) int {
			return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(boolRank(a.begin), boolRank(b.begin)), teDepthOrder(a, b))
		})
		uuid := uint64(0x5ec7_0000) + uint64(tid)
		w.Sequence = uint32(0x5ec0) + uint32(tid)
		w.TrackDescriptor(tracewriter.Track{UUID: uuid, PID: pids[tid], TID: tid})
		writeTrackEvents(w, uuid, evs)
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// teDepthOrder puts inner ends before outer ones, outer begins before
// inner ones.
func teDepthOrder(a, b teEvent) int {
	if a.begin {
		return cmp.Compare(a.depth, b.depth)
	}
	return cmp.Compare(b.depth, a.depth)
}

// writeTrackEvents writes a thread's events on its sequence.
func writeTrackEvents(w *tracewriter.Writer, uuid uint64, evs []teEvent) {
	var iids map[string]uint64
	var next uint64
	for i, e := range evs {
		te := tracewriter.TrackEvent{Type: tracewriter.SliceEndType}
		if i%7 == 0 {
			// Cleared: the names are interned anew from another first
			// iid, so an iid read before now names another section.
			te.Clear, te.Defaults = true, uuid
			iids, next = map[string]uint64{}, uint64(1+(i/7)%3)
		}
		if i%2 == 1 {
			te.Track = uuid
		}
		if e.begin {
			te.Type = tracewriter.SliceBeginType
			iid, ok := iids[e.name]
			switch {
			case i%5 == 4:
				te.Name = e.name
			case ok:
				te.NameIID = iid
			default:
				iids[e.name], te.NameIID = next, next
				te.Intern = map[uint64]string{next: e.name}
				next++
			}
		}
		w.WriteTrackEvent(e.ts, te)
	}
}
