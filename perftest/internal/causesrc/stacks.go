package causesrc

import (
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// FoldedStacks is every main-thread sample of the session folded for
// flame-graph tools (Brendan Gregg's stackcollapse format): one line per
// stack, "step;outermost;…;innermost count", the step a sample fell in
// first ("(between steps)" outside every step), sorted. It runs once the
// session placed its steps on the device clock.
func (s *Source) FoldedStacks(steps []*result.Step) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.log.samples) == 0 {
		return nil
	}
	counts := map[string]int{}
	for _, smp := range s.log.samples {
		name := "(between steps)"
		for _, st := range steps {
			if smp.TimeNs >= st.DeviceStartNs && smp.TimeNs < st.DeviceEndNs {
				name = st.Name
				break
			}
		}
		counts[strings.ReplaceAll(name, ";", ":")+";"+smp.Stack]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + " " + strconv.Itoa(counts[k]) + "\n")
	}
	return []byte(b.String())
}
