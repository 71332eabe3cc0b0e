package simdevice

import (
	"encoding/json"
	"slices"
	"time"
)

// TruthFrame is one frame the app rendered, with every timestamp on the
// device's monotonic clock in nanoseconds. It is what the phone really did,
// for tests to compare measurements with.
type TruthFrame struct {
	Index   int    `json:"frame"` // 0-based, over the device's life
	Package string `json:"package"`
	Window  string `json:"window"`
	Layer   string `json:"layer"`
	Phase   string `json:"phase"`
	Pid     int    `json:"pid"`
	VsyncID int64  `json:"vsync_id"`

	IntendedVsync          int64 `json:"intended_vsync_ns"`
	Vsync                  int64 `json:"vsync_ns"`
	HandleInputStart       int64 `json:"handle_input_start_ns"`
	AnimationStart         int64 `json:"animation_start_ns"`
	PerformTraversalsStart int64 `json:"perform_traversals_start_ns"`
	DrawStart              int64 `json:"draw_start_ns"`
	SyncQueued             int64 `json:"sync_queued_ns"`
	SyncStart              int64 `json:"sync_start_ns"`
	IssueDrawCommandsStart int64 `json:"issue_draw_commands_start_ns"`
	SwapBuffers            int64 `json:"swap_buffers_ns"`
	SwapBuffersCompleted   int64 `json:"swap_buffers_completed_ns"`
	Completed              int64 `json:"completed_ns"`
	GpuCompleted           int64 `json:"gpu_completed_ns"`
	DequeueBufferNs        int64 `json:"dequeue_buffer_duration_ns"`
	QueueBufferNs          int64 `json:"queue_buffer_duration_ns"`
	// Deadline follows the DESIGN jank definition for the API level: on
	// API ≥ 31 it is the FrameDeadline column (IntendedVsync + 2 periods);
	// below, where no column exists, IntendedVsync + 1 period.
	Deadline int64 `json:"deadline_ns"`
	// Present is the first vsync at or after GPU completion plus a 1 ms
	// latch; it is also SurfaceFlinger's actual-present time (B).
	Present int64 `json:"present_ns"`

	SFDesired int64 `json:"sf_desired_ns"` // --latency column A: IntendedVsync + 1 period
	SFActual  int64 `json:"sf_actual_ns"`  // column B
	SFReady   int64 `json:"sf_ready_ns"`   // column C: GPU completion

	Duration int64 `json:"duration_ns"` // Completed − IntendedVsync
	Missed   bool  `json:"missed"`      // Completed > Deadline
	Slow     bool  `json:"slow"`        // the workload made this frame slow
	// Cause names the workload cause that made the frame slow (Jank.Cause);
	// the main-thread messages that ran its work are TruthBlocks with this
	// frame's IntendedVsync, written to the truth stream before the frame.
	Cause string `json:"cause,omitempty"`
	// WaitMessage: the cause's own message ran on the main thread from
	// just before IntendedVsync until the frame began (a "wait" cause), so
	// the thread was running then, not waiting for a CPU.
	WaitMessage bool `json:"wait_message,omitempty"`

	// Wait is what the main thread waited on in a slow frame (Jank.Wait):
	// "binder", "io", "lock", or "" when it computed.
	Wait string `json:"wait,omitempty"`
	// SFLate: SurfaceFlinger missed the vsync the frame was due in
	// (Jank.SurfaceFlinger), so it was presented a period late.
	SFLate bool `json:"sf_late,omitempty"`
	// Stuffed: the frame's buffer waited behind an earlier frame's, so it
	// was presented after the first vsync following its completion.
	Stuffed bool `json:"stuffed,omitempty"`

	// Reject is why the frame's gfxinfo row is not a frame (a
	// gfxinfo.Reject, set by FrameQuirks); "" when the row is one.
	Reject string `json:"reject,omitempty"`
	// First: the first frame of the window a launch shows, done at
	// Displayed. hwui flags its row WindowLayoutChanged (Flags 1), which
	// marks it an outlier, not a frame of the app's pace (Reject "flags");
	// SurfaceFlinger presents it as any other.
	First bool `json:"first,omitempty"`
	// died: the app's process was killed before the frame's present. Its
	// main thread and RenderThread drew it, SurfaceFlinger never showed it:
	// a trace has its slices but no FrameTimeline frame, and no dump or
	// truth count has it.
	died bool
	// Twin: one more row, with Flags 2 and this frame's IntendedVsync,
	// comes before the frame's row (rejected as "flags").
	Twin bool `json:"twin,omitempty"`
	// ShownCompletedNs is when the row starts to show FrameCompleted, when
	// later than its presentation (FrameQuirks.LateEvery).
	ShownCompletedNs int64 `json:"shown_completed_ns,omitempty"`
	// Sections are the trace sections the app wrote in the frame
	// (Phase.Sections).
	Sections []TruthSection `json:"sections,omitempty"`

	quirk        rowQuirk
	stalePresent bool
}

// TruthStartup is one app launch.
type TruthStartup struct {
	Kind        string        `json:"kind"` // COLD, WARM or HOT
	Pid         int           `json:"pid"`
	StartNs     int64         `json:"start_ns"`
	DisplayedNs int64         `json:"displayed_ns"`
	Displayed   time.Duration `json:"displayed"`
	FullyDrawn  time.Duration `json:"fully_drawn,omitempty"`
	// NoiseFactor is what Config.Noise multiplied the workload's launch
	// times by for this launch (the run's factor times the launch's own
	// draw; Displayed and FullyDrawn are the results, rounded to whole
	// milliseconds); 0 without noise.
	NoiseFactor float64 `json:"noise_factor,omitempty"`
	// Compilation is the app's compiler filter the start ran under;
	// Phases how the start spent its time (startup_phases.go,
	// startup_warm.go).
	Compilation string       `json:"compilation,omitempty"`
	Phases      []TruthPhase `json:"phases,omitempty"`
	drawnNs     int64        // when the app called reportFullyDrawn; 0 before, or never
}

// TruthTotals is the cumulative ground truth at one instant, in the units
// the device prints.
type TruthTotals struct {
	Uptime time.Duration `json:"uptime_ns"`
	// Pids of the app's running process (one, or none).
	Pids []int `json:"pids"`
	// AppTicks is utime+stime of the running app process as /proc/<pid>/stat
	// shows it; AppTicksAllProcs adds processes that died (crash, force-stop).
	AppTicks         int64 `json:"app_ticks"`
	AppTicksAllProcs int64 `json:"app_ticks_all_procs"`
	// ThreadTicks is utime+stime per thread name of the running process.
	ThreadTicks map[string]int64 `json:"thread_ticks"`
	// DeviceBusy and DeviceTotal are the /proc/stat "cpu" line sums of the
	// DESIGN CPU definition (busy = total − idle − iowait).
	DeviceBusy  int64 `json:"device_busy_ticks"`
	DeviceTotal int64 `json:"device_total_ticks"`
	// Per-UID traffic in bytes since boot.
	RxBytes map[int]int64 `json:"rx_bytes"`
	TxBytes map[int]int64 `json:"tx_bytes"`
	// Memory of the running app in KiB (dumpsys meminfo TOTAL PSS / RSS).
	PSSKiB    int64 `json:"pss_kib"`
	RSSKiB    int64 `json:"rss_kib"`
	JavaKiB   int64 `json:"java_kib"`
	NativeKiB int64 `json:"native_kib"`

	Frames   int            `json:"frames"`
	Missed   int            `json:"missed"`
	Startups []TruthStartup `json:"startups"`
	Crashes  int            `json:"crashes"`
}

// TruthFrames returns the frames presented so far, oldest first (on a
// device that ran for hours, the newest 100,000 to 200,000).
func (w *World) TruthFrames() []TruthFrame {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	return slices.Clone(w.frames)
}

// Truth returns the cumulative ground truth now.
func (w *World) Truth() TruthTotals {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	t := TruthTotals{
		Uptime:      time.Duration(w.now),
		ThreadTicks: map[string]int64{},
		RxBytes:     map[int]int64{},
		TxBytes:     map[int]int64{},
		Frames:      w.frameCount,
		Missed:      w.missedCount,
		Startups:    slices.Clone(w.startup),
	}
	for _, d := range w.ended {
		t.AppTicksAllProcs += d.ticks
	}
	t.Crashes = w.crashes
	if a := w.app; a != nil {
		t.Pids = []int{a.pid}
		u, s := a.ticks()
		t.AppTicks = u + s
		t.AppTicksAllProcs += u + s
		for _, th := range a.threads {
			t.ThreadTicks[th.name] = int64(th.utime) + int64(th.stime)
		}
		m := w.memLocked()
		t.PSSKiB, t.RSSKiB, t.JavaKiB, t.NativeKiB = m.pss, m.rss, m.java, m.native
	}
	c := w.cpu.line()
	t.DeviceTotal = c.total()
	t.DeviceBusy = t.DeviceTotal - c.idle - c.iowait
	for uid, tr := range w.traffic {
		t.RxBytes[uid] = int64(tr.rx)
		t.TxBytes[uid] = int64(tr.tx)
	}
	return t
}

// writeTruthLocked appends one frame to the truth writer as a JSON line,
// after a {"block": …} line for each message of cause work it waited for or
// ran.
func (w *World) writeTruthLocked(f TruthFrame) {
	var blocks []TruthBlock
	if f.Cause != "" {
		blocks = w.frameBlocks[f.IntendedVsync]
		delete(w.frameBlocks, f.IntendedVsync)
	}
	if w.truthW == nil || w.truthEr != nil {
		return
	}
	for _, bl := range blocks {
		b, err := json.Marshal(struct {
			Block TruthBlock `json:"block"`
		}{bl})
		if err == nil {
			b = append(b, '\n')
			_, err = w.truthW.Write(b)
		}
		if err != nil {
			w.truthEr = err
			return
		}
	}
	b, err := json.Marshal(f)
	if err == nil {
		b = append(b, '\n')
		_, err = w.truthW.Write(b)
	}
	w.truthEr = err
}

func (w *World) flushTruthLocked() {
	if w.truthW == nil || w.truthEr != nil {
		return
	}
	w.truthEr = w.truthW.Flush()
}

// truthErr is the first error writing the truth stream, if any.
func (w *World) truthErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.truthEr
}
