package perftest

import (
	"slices"

	"github.com/perfgate/perfgate/result"
)

// AddStartup records an app start in the open step, or in the most recent
// step when none is open. Starts of one kind recorded in one step add up
// as iterations: the figures become the nearest-rank medians of them all,
// and full display is kept only when every launch reported it.
func (s *Session) AddStartup(st result.StartupStats) {
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
		st.Iterations = append(append([]result.StartupSample(nil), old.Iterations...), st.Iterations...)
	}
	st.Summarise()
	step.Startup = &st
}

// Now is the session's host clock: ns since it started, as steps' and
// launches' (StartupSample) HostStartNs count it.
func (s *Session) Now() int64 { return s.now() }

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

// EditStep calls fn, under the session's lock, with the step named name
// (none: nothing), to add what only the caller knows (Step.Command).
func (s *Session) EditStep(name string, fn func(*result.Step)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.res.Steps {
		if st.Name == name {
			fn(st)
		}
	}
}
