package simdevice

import "slices"

// TruthANR is one time the system reported the app not responding: when
// (the device's monotonic ns), the process, and the main thread's stack
// at that moment, outermost first (the work of the cause that froze it).
type TruthANR struct {
	TimeNs int64    `json:"time_ns"`
	Pid    int      `json:"pid"`
	Stack  []string `json:"stack"`
}

// TruthANRs returns the ANRs the system reported so far, oldest first.
func (w *World) TruthANRs() []TruthANR {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	var out []TruthANR
	for _, r := range w.anrs {
		if r.at <= w.now {
			out = append(out, TruthANR{TimeNs: r.at, Pid: r.pid, Stack: slices.Clone(r.stack)})
		}
	}
	return out
}
