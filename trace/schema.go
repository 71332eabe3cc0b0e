package trace

import "google.golang.org/protobuf/encoding/protowire"

// The fields this package reads, by number, from perfetto's
// protos/perfetto/trace/**.proto (and, for FrameTimeline, the Android tree's
// frameworks_native_trace_packet.proto mirrored there).

func msg(name string, fields map[protowire.Number]field) *message {
	m := &message{name: name}
	for num, f := range fields {
		for int(num) >= len(m.fields) {
			m.fields = append(m.fields, field{})
		}
		m.fields[num] = f
	}
	return m
}

var (
	mTracePacket = msg("TracePacket", map[protowire.Number]field{
		1:  {"ftrace_events", kBytes},
		2:  {"process_tree", kBytes},
		6:  {"clock_snapshot", kBytes},
		8:  {"timestamp", kVarint},
		10: {"trusted_packet_sequence_id", kVarint},
		11: {"track_event", kBytes},
		12: {"interned_data", kBytes},
		13: {"sequence_flags", kVarint},
		41: {"incremental_state_cleared", kVarint},
		42: {"previous_packet_dropped", kVarint},
		33: {"trace_config", kBytes},
		45: {"system_info", kBytes},
		58: {"timestamp_clock_id", kVarint},
		59: {"trace_packet_defaults", kBytes},
		60: {"track_descriptor", kBytes},
		76: {"frame_timeline_event", kBytes},
		87: {"first_packet_on_sequence", kVarint},
		89: {"trace_uuid", kBytes},
	})

	mClockSnapshot = msg("ClockSnapshot", map[protowire.Number]field{
		1: {"clocks", kBytes},
		2: {"primary_trace_clock", kVarint},
	})
	mClock = msg("Clock", map[protowire.Number]field{
		1: {"clock_id", kVarint},
		2: {"timestamp", kVarint},
		3: {"is_incremental", kVarint},
		4: {"unit_multiplier_ns", kVarint},
	})

	mSystemInfo = msg("SystemInfo", map[protowire.Number]field{
		1: {"utsname", kBytes},
		2: {"android_build_fingerprint", kBytes},
		5: {"android_sdk_version", kVarint},
	})
	mUtsname = msg("Utsname", map[protowire.Number]field{
		3: {"release", kBytes},
	})

	mProcessTree = msg("ProcessTree", map[protowire.Number]field{
		1: {"processes", kBytes},
		2: {"threads", kBytes},
	})
	mProcess = msg("Process", map[protowire.Number]field{
		1: {"pid", kVarint},
		2: {"ppid", kVarint},
		3: {"cmdline", kBytes},
		8: {"is_kthread", kVarint},
	})
	mThread = msg("Thread", map[protowire.Number]field{
		1: {"tid", kVarint},
		2: {"name", kBytes},
		3: {"tgid", kVarint},
	})

	mFrameTimelineEvent = msg("FrameTimelineEvent", map[protowire.Number]field{
		1: {"expected_display_frame_start", kBytes},
		2: {"actual_display_frame_start", kBytes},
		3: {"expected_surface_frame_start", kBytes},
		4: {"actual_surface_frame_start", kBytes},
		5: {"frame_end", kBytes},
	})
	// The surface frame starts: expected has fields 1-5, actual all of them.
	mSurfaceFrameStart = msg("SurfaceFrameStart", map[protowire.Number]field{
		1:  {"cookie", kVarint},
		2:  {"token", kVarint},
		3:  {"display_frame_token", kVarint},
		4:  {"pid", kVarint},
		5:  {"layer_name", kBytes},
		6:  {"present_type", kVarint},
		7:  {"on_time_finish", kVarint},
		8:  {"gpu_composition", kVarint},
		9:  {"jank_type", kVarint},
		10: {"prediction_type", kVarint},
	})
	// The display frame starts: expected has fields 1-3, actual all of them.
	mDisplayFrameStart = msg("DisplayFrameStart", map[protowire.Number]field{
		1: {"cookie", kVarint},
		2: {"token", kVarint},
		3: {"pid", kVarint},
		4: {"present_type", kVarint},
		5: {"on_time_finish", kVarint},
		6: {"gpu_composition", kVarint},
		7: {"jank_type", kVarint},
		8: {"prediction_type", kVarint},
	})
	mFrameEnd = msg("FrameEnd", map[protowire.Number]field{
		1: {"cookie", kVarint},
	})

	mFtraceEventBundle = msg("FtraceEventBundle", map[protowire.Number]field{
		1: {"cpu", kVarint},
		2: {"event", kBytes},
		3: {"lost_events", kVarint},
		4: {"compact_sched", kBytes},
		5: {"ftrace_clock", kVarint},
		6: {"ftrace_timestamp", kVarint},
		7: {"boot_timestamp", kVarint},
	})
	mCompactSched = msg("CompactSched", map[protowire.Number]field{
		1:  {"switch_timestamp", kPacked},
		2:  {"switch_prev_state", kPacked},
		3:  {"switch_next_pid", kPacked},
		4:  {"switch_next_prio", kPacked},
		5:  {"intern_table", kBytes},
		6:  {"switch_next_comm_index", kPacked},
		7:  {"waking_timestamp", kPacked},
		8:  {"waking_pid", kPacked},
		9:  {"waking_target_cpu", kPacked},
		10: {"waking_prio", kPacked},
		11: {"waking_comm_index", kPacked},
	})
	mFtraceEvent = msg("FtraceEvent", map[protowire.Number]field{
		1:  {"timestamp", kVarint},
		2:  {"pid", kVarint},
		3:  {"print", kBytes},
		4:  {"sched_switch", kBytes},
		17: {"sched_wakeup", kBytes},
		20: {"sched_waking", kBytes},
		50: {"binder_transaction", kBytes},
	})
	mPrint = msg("PrintFtraceEvent", map[protowire.Number]field{
		2: {"buf", kBytes},
	})
	mSchedSwitch = msg("SchedSwitchFtraceEvent", map[protowire.Number]field{
		1: {"prev_comm", kBytes},
		2: {"prev_pid", kVarint},
		4: {"prev_state", kVarint},
		5: {"next_comm", kBytes},
		6: {"next_pid", kVarint},
	})
	mSchedWaking = msg("SchedWakingFtraceEvent", map[protowire.Number]field{
		1: {"comm", kBytes},
		2: {"pid", kVarint},
	})
	mBinderTransaction = msg("BinderTransactionFtraceEvent", map[protowire.Number]field{
		1: {"debug_id", kVarint},
		3: {"to_proc", kVarint},
		4: {"to_thread", kVarint},
		5: {"reply", kVarint},
		7: {"flags", kVarint},
	})

	mTracePacketDefaults = msg("TracePacketDefaults", map[protowire.Number]field{
		11: {"track_event_defaults", kBytes},
		58: {"timestamp_clock_id", kVarint},
	})
	mTrackEventDefaults = msg("TrackEventDefaults", map[protowire.Number]field{
		11: {"track_uuid", kVarint},
	})
	mInternedData = msg("InternedData", map[protowire.Number]field{
		2: {"event_names", kBytes},
	})
	mEventName = msg("EventName", map[protowire.Number]field{
		1: {"iid", kVarint},
		2: {"name", kBytes},
	})
	mTrackDescriptor = msg("TrackDescriptor", map[protowire.Number]field{
		1: {"uuid", kVarint},
		2: {"name", kBytes},
		3: {"process", kBytes},
		4: {"thread", kBytes},
	})
	mProcessDescriptor = msg("ProcessDescriptor", map[protowire.Number]field{
		1: {"pid", kVarint},
		2: {"cmdline", kBytes},
		6: {"process_name", kBytes},
	})
	mThreadDescriptor = msg("ThreadDescriptor", map[protowire.Number]field{
		1: {"pid", kVarint},
		2: {"tid", kVarint},
		5: {"thread_name", kBytes},
	})
	mTrackEvent = msg("TrackEvent", map[protowire.Number]field{
		9:  {"type", kVarint},
		10: {"name_iid", kVarint},
		11: {"track_uuid", kVarint},
		23: {"name", kBytes},
	})
)

// sequence_flags bits.
const (
	seqIncrementalStateCleared = 1
	seqNeedsIncrementalState   = 2
)

// TrackEvent.Type values.
const (
	teSliceBegin = 1
	teSliceEnd   = 2
)
