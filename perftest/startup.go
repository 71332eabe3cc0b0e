package perftest

import (
	"slices"

	"github.com/perfgate/perfgate/frames"
)

// AddStartup records an app start in the open step, or in the most recent
// step when none is open. Starts of one kind recorded in one step add up
// as iterations: the figures become the nearest-rank medians of them all,
// and full display is kept only when every launch reported it.
func (s *Session) AddStartup(st StartupStats) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	step := s.cur
	if step == nil && len(s.res.Steps) > 0 {
		step = s.res.Steps[len(s.res.Steps)-1]
	}
	if step == nil {
		return
	}
	if old := step.Startup; old != nil && old.Kind == st.Kind {
		st.Iterations = append(append([]StartupSample(nil), old.Iterations...), st.Iterations...)
	}
	st.Summarise()
	step.Startup = &st
}

// Summarise sets the figures from the launches in Iterations: time to
// initial display and to full display, each the nearest-rank median of
// the launches (DESIGN.md percentiles), full display only when every
// launch reported it.
func (st *StartupStats) Summarise() {
	var total, full []float64
	for _, it := range st.Iterations {
		total = append(total, float64(it.TotalTimeMs))
		if it.FullyDrawnMs > 0 {
			full = append(full, float64(it.FullyDrawnMs))
		}
	}
	st.InitialDisplayMs = frames.NearestRank(total, 50)
	st.FullDisplayMs = 0
	if len(full) == len(st.Iterations) {
		st.FullDisplayMs = frames.NearestRank(full, 50)
	}
}

// Restarting runs fn, during which the app's process is expected to end
// or be replaced (a cold launch stops it first): a process change seen
// while fn runs is recorded in Result.Restarts rather than as a crash, and
// so is the end of a process that ran before fn began, seen by the first
// tick after it. A process fn started that has ended by that tick
// crashed, or ended, after the restart.
func (s *Session) Restarting(fn func()) {
	if s == nil {
		fn()
		return
	}
	s.mu.Lock()
	if s.restarting == 0 {
		s.restartFromNs = s.now()
		s.restartOld = nil
		if s.col != nil {
			s.restartOld = slices.Clone(s.col.pids)
		}
	}
	s.restarting++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.restarting--
		s.restartGrace = true
		s.restartEndNs = s.now()
		s.mu.Unlock()
	}()
	fn()
}
