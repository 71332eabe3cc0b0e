package tracewriter

import (
	"github.com/perfgate/perfgate/trace"
)

// Track is a TrackDescriptor (google/perfetto
// protos/perfetto/trace/track_event/track_descriptor.proto): a thread's
// track when TID is set, a process's when only PID is, else a track named
// Name under Parent.
type Track struct {
	UUID, Parent uint64
	Name         string
	PID, TID     int32
}

// TrackDescriptor writes t's descriptor.
func (w *Writer) TrackDescriptor(t Track) {
	var td []byte
	td = appendVarint(td, 1, t.UUID)
	if t.Parent != 0 {
		td = appendVarint(td, 5, t.Parent)
	}
	if t.Name != "" {
		td = appendString(td, 2, t.Name)
	}
	switch {
	case t.TID != 0:
		var th []byte
		th = appendVarint(th, 1, uint64(t.PID))
		th = appendVarint(th, 2, uint64(t.TID))
		td = appendBytes(td, 4, th)
	case t.PID != 0:
		td = appendBytes(td, 3, appendVarint(nil, 1, uint64(t.PID)))
	}
	w.flush(appendBytes(w.packet(0, 0), 60, td))
}

// TrackEvent types (TrackEvent.Type).
const (
	SliceBeginType = 1
	SliceEndType   = 2
	InstantType    = 3
)

// TrackEvent is one TrackEvent packet as the Perfetto SDK writes it.
type TrackEvent struct {
	Type uint64
	// Track is the event's track_uuid; 0 leaves it out, for the
	// sequence's default track.
	Track uint64
	// Name is written as is; NameIID, when Name is "", names the event by
	// an interned name.
	Name    string
	NameIID uint64
	// Intern are event names the packet interns (iid to name).
	Intern map[uint64]string
	// Clear marks the packet as clearing the sequence's incremental state
	// (SEQ_INCREMENTAL_STATE_CLEARED); Defaults, with Clear, sets the
	// sequence's default track (TrackEventDefaults.track_uuid).
	Clear    bool
	Defaults uint64
}

// WriteTrackEvent writes e at ts (boottime), on the Writer's Sequence.
func (w *Writer) WriteTrackEvent(ts int64, e TrackEvent) {
	b := w.packet(ts, trace.Boottime)
	flags := uint64(2) // SEQ_NEEDS_INCREMENTAL_STATE
	if e.Clear {
		flags |= 1
	}
	b = appendVarint(b, 13, flags)
	if e.Defaults != 0 {
		b = appendBytes(b, 59, appendBytes(nil, 11, appendVarint(nil, 11, e.Defaults)))
	}
	if len(e.Intern) > 0 {
		b = appendBytes(b, 12, internedNames(e.Intern))
	}
	var te []byte
	te = appendVarint(te, 9, e.Type)
	if e.Track != 0 {
		te = appendVarint(te, 11, e.Track)
	}
	switch {
	case e.Name != "":
		te = appendString(te, 23, e.Name)
	case e.Type != SliceEndType:
		te = appendVarint(te, 10, e.NameIID)
	}
	w.flush(appendBytes(b, 11, te))
}
