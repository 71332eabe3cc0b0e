package result

import (
	"strings"

	"github.com/perfgate/perfgate/android/hprof"
	"github.com/perfgate/perfgate/metrics"
)

// HeapDumps are a session's two Java heap dumps of the app, one before its
// first step and one after its last, and the classes that grew between
// them: what a failing memory gate quotes as the likely leak.
type HeapDumps struct {
	First *HeapDump `json:"first,omitempty"`
	Last  *HeapDump `json:"last,omitempty"`
	// Grew lists the classes that grew from First to Last, the most
	// shallow bytes gained first (hprof.Diff), at most MaxGrew of them.
	Grew []hprof.Growth `json:"grew,omitempty"`
	// Note says why the session has no diff: the phone refused (the app
	// is not debuggable), a dump failed, the app restarted between them.
	Note string `json:"note,omitempty"`
}

// MaxGrew is how many grown classes a Result keeps.
const MaxGrew = 20

// HeapDump is one heap dump, pulled into the results folder beside the
// Result, and its histogram's totals.
type HeapDump struct {
	// File is the dump's name in the Result's folder
	// (<stem>.heap-first.hprof).
	File         string `json:"file"`
	Bytes        int64  `json:"bytes"`
	PID          int    `json:"pid"`
	HostNs       int64  `json:"host_ns"`
	Classes      int    `json:"classes"`
	Instances    int64  `json:"instances"`
	ShallowBytes int64  `json:"shallow_bytes"`
}

// Line is the growth a failing memory gate quotes: "grew between the heap
// dumps: +1,200 com.example.feed.ImageHolder (+37.5 MiB), …", the three
// classes that grew most; "" without a diff.
func (h *HeapDumps) Line() string {
	if h == nil || len(h.Grew) == 0 {
		return ""
	}
	var parts []string
	for _, g := range h.Grew[:min(3, len(h.Grew))] {
		parts = append(parts, g.String())
	}
	return "grew between the heap dumps: " + strings.Join(parts, ", ")
}

// memoryCause puts the heap dumps' line as the cause of every memory
// metric of m.
func memoryCause(causes map[metrics.Name]string, r *Result) map[metrics.Name]string {
	if r == nil {
		return causes
	}
	line := r.HeapDumps.Line()
	if line == "" {
		return causes
	}
	if causes == nil {
		causes = map[metrics.Name]string{}
	}
	for _, d := range metrics.Catalogue() {
		if d.Family == metrics.FamilyPSS || d.Family == metrics.FamilyRSS {
			causes[d.Name] = line
		}
	}
	return causes
}
