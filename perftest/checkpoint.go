package perftest

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// checkpointLocked is the Result so far, for a write after the step named
// after ended, or nil when nothing is to be written (the session is
// stopping, or writes no Result). It copies what the lanes go on changing,
// so that it can be written without the lock; the finished steps are
// summarised as Stop would summarise them from what was read by now.
func (s *Session) checkpointLocked(after string) *checkpoint {
	if s.stopping || s.cfg.ResultFile == "-" {
		return nil
	}
	s.ckSeq++
	r, c := s.res, s.col
	clk := c.stepClock()
	snap := &result.Result{
		Schema: result.Schema, Name: r.Name, TestPackage: r.TestPackage,
		Device: r.Device, App: r.App, Config: r.Config,
		Start: r.Start, End: time.Now(), Clock: clk.Sync(),
		Frames:         slices.Clone(r.Frames),
		FramesRejected: maps.Clone(r.FramesRejected),
		RejectedFrames: slices.Clone(r.RejectedFrames),
		Samples:        slices.Clone(r.Samples),
		Memory:         slices.Clone(r.Memory),
		Traffic:        slices.Clone(r.Traffic),
		Gaps:           slices.Clone(r.Gaps),
		Crashes:        slices.Clone(r.Crashes),
		Restarts:       slices.Clone(r.Restarts),
		ProcessEnds:    slices.Clone(r.ProcessEnds),
		Notes:          slices.Clone(r.Notes),
		Unfinished:     &result.Unfinished{After: after, Written: time.Now()},
	}
	snap.App.PIDs = slices.Clone(r.App.PIDs)
	if s.cur != nil {
		snap.Unfinished.InStep = s.cur.Name
	}
	snap.Error = snap.Unfinished.Reason()
	if r.Causes != nil {
		cr := *r.Causes
		snap.Causes = &cr
	}
	if r.Trace != nil {
		ti := *r.Trace
		ti.Notes = slices.Clone(ti.Notes)
		snap.Trace = &ti
	}
	for i := range snap.Samples {
		snap.Samples[i].DeviceNs = clk.ToDevice(snap.Samples[i].HostNs)
	}
	for i := range snap.Memory {
		snap.Memory[i].DeviceNs = clk.ToDevice(snap.Memory[i].HostNs)
	}
	for i := range snap.Traffic {
		snap.Traffic[i].DeviceNs = clk.ToDevice(snap.Traffic[i].HostNs)
	}
	for _, list := range [][]result.Crash{snap.Crashes, snap.Restarts, snap.ProcessEnds} {
		for i := range list {
			list[i].DeviceNs = clk.ToDevice(list[i].HostNs)
		}
	}
	// Summaries note what Stop's summaries note too; these are not kept.
	// A step summarised once a poll after its end came back is taken
	// again as it was, unless what it is summarised from changed since.
	c.provisional = true
	for _, st := range r.Steps {
		if st == s.cur {
			continue
		}
		key := ckKey{crashes: len(r.Crashes), ends: len(r.ProcessEnds), gaps: len(r.Gaps), rejected: len(r.RejectedFrames),
			action: st.ActionFailed, unfinished: st.Unfinished}
		if done, ok := s.ckDone[st]; ok {
			key.frames = framesIn(r.Frames, done.step.DeviceStartNs, done.step.DeviceEndNs)
			if done.key == key {
				cp := *done.step
				snap.Steps = append(snap.Steps, &cp)
				continue
			}
		}
		cp := *st
		cp.DeviceStartNs, cp.DeviceEndNs = clk.ToDevice(cp.HostStartNs), clk.ToDevice(cp.HostEndNs)
		c.summarise(&cp)
		snap.Steps = append(snap.Steps, &cp)
		if c.framesReadAfter(st.HostEndNs) || !s.cfg.has(CollectFrames) {
			if s.ckDone == nil {
				s.ckDone = map[*result.Step]ckStep{}
			}
			done := cp
			key.frames = framesIn(r.Frames, cp.DeviceStartNs, cp.DeviceEndNs)
			s.ckDone[st] = ckStep{key: key, step: &done}
		}
	}
	c.provisional = false
	snap.Verdicts = r.CopyVerdicts()
	snap.Bind()
	return &checkpoint{Result: snap, seq: s.ckSeq}
}

// ckStep is a step summarised for a checkpoint once a poll after its end
// came back, and what it was summarised from that can still change.
type ckStep struct {
	key  ckKey
	step *result.Step
}

// ckKey is what a finished step's summary depends on that can grow after
// the step ended: the crashes, process ends and gaps recorded (a crash's
// log read finishes later), the frames in its window (one that finished
// drawing late) and the rows rejected, a failed action, the step cut
// short.
type ckKey struct {
	crashes, ends, gaps, frames, rejected int
	action                                string
	unfinished                            bool
}

// framesIn counts the frames, in time order, whose time is in [start, end).
func framesIn(fs []frames.Frame, start, end int64) int {
	i := sort.Search(len(fs), func(i int) bool { return fs[i].Time() >= start })
	j := sort.Search(len(fs), func(i int) bool { return fs[i].Time() >= end })
	return max(0, j-i)
}

// checkpoint is a Result written before Stop and its place in the
// order of the session's writes.
type checkpoint struct {
	*result.Result
	seq uint64
}

// writeCheckpoint writes snap, a checkpointLocked Result, unless Stop wrote
// the final Result or a later checkpoint was written already. A write that
// fails is remembered: Stop notes it in the final Result.
func (s *Session) writeCheckpoint(snap *checkpoint) {
	if snap == nil {
		return
	}
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if s.finalWritten || snap.seq <= s.ckWritten {
		return
	}
	s.ckWritten = snap.seq
	if err := s.cfg.writeResult(snap.Result); err != nil && s.ckErr == nil {
		s.ckErr = fmt.Errorf("after step %q: %w", snap.Unfinished.After, err)
	}
}

// writeFinal writes the final Result r, after which no checkpoint does.
func (s *Session) writeFinal(r *result.Result) error {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	s.finalWritten = true
	return s.cfg.writeResult(r)
}

// stepEndedLocked takes the checkpoint of the step st that just ended, and
// arms the one the lane writes once a frame poll after its end came back.
func (s *Session) stepEndedLocked(st *result.Step) *checkpoint {
	snap := s.checkpointLocked(st.Name)
	if snap != nil && s.cfg.has(CollectFrames) {
		s.ckAfter, s.ckAfterName, s.ckArmed = st.HostEndNs, st.Name, true
	}
	return snap
}

// polledLocked runs after each tick the lane absorbed: once a frame poll
// came back after the end of the step the last checkpoint was taken at,
// and the frames of the step's last moments are in as Stop waits for them
// (no longer drawing, or polled Config.Settle past the step's end), it
// takes another checkpoint, and writes it without holding up the lane (a
// long session's Result takes longer to write than a tick's interval).
//
// Settle is counted to when the last frame poll was sent, not to now: a
// host that read the poll late (a loaded machine) got a dump the phone
// took at once, with the step's last frame perhaps still drawing.
func (s *Session) polledLocked() {
	if !s.ckArmed || !s.col.framesReadAfter(s.ckAfter) {
		return
	}
	if s.col.framesPending(s.ckAfter) && s.col.framesSent-s.ckAfter < int64(s.cfg.Settle) {
		return
	}
	s.ckArmed = false
	snap := s.checkpointLocked(s.ckAfterName)
	if snap == nil {
		return
	}
	s.writers.Add(1)
	go func() {
		defer s.writers.Done()
		s.writeCheckpoint(snap)
	}()
}
