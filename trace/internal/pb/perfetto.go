package pb

import "google.golang.org/protobuf/encoding/protowire"

// The messages and fields package trace reads, by number, from perfetto's
// protos/perfetto/trace/**.proto (and, for FrameTimeline, the Android tree's
// frameworks_native_trace_packet.proto mirrored there).
var (
	TracePacket = NewMessage("TracePacket", map[protowire.Number]Def{
		1:  {"ftrace_events", KBytes},
		2:  {"process_tree", KBytes},
		6:  {"clock_snapshot", KBytes},
		8:  {"timestamp", KVarint},
		10: {"trusted_packet_sequence_id", KVarint},
		11: {"track_event", KBytes},
		12: {"interned_data", KBytes},
		13: {"sequence_flags", KVarint},
		41: {"incremental_state_cleared", KVarint},
		42: {"previous_packet_dropped", KVarint},
		33: {"trace_config", KBytes},
		45: {"system_info", KBytes},
		58: {"timestamp_clock_id", KVarint},
		59: {"trace_packet_defaults", KBytes},
		60: {"track_descriptor", KBytes},
		76: {"frame_timeline_event", KBytes},
		87: {"first_packet_on_sequence", KVarint},
		89: {"trace_uuid", KBytes},
	})

	ClockSnapshot = NewMessage("ClockSnapshot", map[protowire.Number]Def{
		1: {"clocks", KBytes},
		2: {"primary_trace_clock", KVarint},
	})
	Clock = NewMessage("Clock", map[protowire.Number]Def{
		1: {"clock_id", KVarint},
		2: {"timestamp", KVarint},
		3: {"is_incremental", KVarint},
		4: {"unit_multiplier_ns", KVarint},
	})

	SystemInfo = NewMessage("SystemInfo", map[protowire.Number]Def{
		1: {"utsname", KBytes},
		2: {"android_build_fingerprint", KBytes},
		5: {"android_sdk_version", KVarint},
	})
	Utsname = NewMessage("Utsname", map[protowire.Number]Def{
		3: {"release", KBytes},
	})

	ProcessTree = NewMessage("ProcessTree", map[protowire.Number]Def{
		1: {"processes", KBytes},
		2: {"threads", KBytes},
	})
	Process = NewMessage("Process", map[protowire.Number]Def{
		1: {"pid", KVarint},
		2: {"ppid", KVarint},
		3: {"cmdline", KBytes},
		8: {"is_kthread", KVarint},
	})
	Thread = NewMessage("Thread", map[protowire.Number]Def{
		1: {"tid", KVarint},
		2: {"name", KBytes},
		3: {"tgid", KVarint},
	})

	FrameTimelineEvent = NewMessage("FrameTimelineEvent", map[protowire.Number]Def{
		1: {"expected_display_frame_start", KBytes},
		2: {"actual_display_frame_start", KBytes},
		3: {"expected_surface_frame_start", KBytes},
		4: {"actual_surface_frame_start", KBytes},
		5: {"frame_end", KBytes},
	})
	// The surface frame starts: expected has fields 1-5, actual all of them.
	SurfaceFrameStart = NewMessage("SurfaceFrameStart", map[protowire.Number]Def{
		1:  {"cookie", KVarint},
		2:  {"token", KVarint},
		3:  {"display_frame_token", KVarint},
		4:  {"pid", KVarint},
		5:  {"layer_name", KBytes},
		6:  {"present_type", KVarint},
		7:  {"on_time_finish", KVarint},
		8:  {"gpu_composition", KVarint},
		9:  {"jank_type", KVarint},
		10: {"prediction_type", KVarint},
	})
	// The display frame starts: expected has fields 1-3, actual all of them.
	DisplayFrameStart = NewMessage("DisplayFrameStart", map[protowire.Number]Def{
		1: {"cookie", KVarint},
		2: {"token", KVarint},
		3: {"pid", KVarint},
		4: {"present_type", KVarint},
		5: {"on_time_finish", KVarint},
		6: {"gpu_composition", KVarint},
		7: {"jank_type", KVarint},
		8: {"prediction_type", KVarint},
	})
	FrameEnd = NewMessage("FrameEnd", map[protowire.Number]Def{
		1: {"cookie", KVarint},
	})

	FtraceEventBundle = NewMessage("FtraceEventBundle", map[protowire.Number]Def{
		1: {"cpu", KVarint},
		2: {"event", KBytes},
		3: {"lost_events", KVarint},
		4: {"compact_sched", KBytes},
		5: {"ftrace_clock", KVarint},
		6: {"ftrace_timestamp", KVarint},
		7: {"boot_timestamp", KVarint},
	})
	CompactSched = NewMessage("CompactSched", map[protowire.Number]Def{
		1:  {"switch_timestamp", KPacked},
		2:  {"switch_prev_state", KPacked},
		3:  {"switch_next_pid", KPacked},
		4:  {"switch_next_prio", KPacked},
		5:  {"intern_table", KBytes},
		6:  {"switch_next_comm_index", KPacked},
		7:  {"waking_timestamp", KPacked},
		8:  {"waking_pid", KPacked},
		9:  {"waking_target_cpu", KPacked},
		10: {"waking_prio", KPacked},
		11: {"waking_comm_index", KPacked},
	})
	FtraceEvent = NewMessage("FtraceEvent", map[protowire.Number]Def{
		1:  {"timestamp", KVarint},
		2:  {"pid", KVarint},
		3:  {"print", KBytes},
		4:  {"sched_switch", KBytes},
		17: {"sched_wakeup", KBytes},
		20: {"sched_waking", KBytes},
		50: {"binder_transaction", KBytes},
	})
	Print = NewMessage("PrintFtraceEvent", map[protowire.Number]Def{
		2: {"buf", KBytes},
	})
	SchedSwitch = NewMessage("SchedSwitchFtraceEvent", map[protowire.Number]Def{
		1: {"prev_comm", KBytes},
		2: {"prev_pid", KVarint},
		4: {"prev_state", KVarint},
		5: {"next_comm", KBytes},
		6: {"next_pid", KVarint},
	})
	SchedWaking = NewMessage("SchedWakingFtraceEvent", map[protowire.Number]Def{
		1: {"comm", KBytes},
		2: {"pid", KVarint},
	})
	BinderTransaction = NewMessage("BinderTransactionFtraceEvent", map[protowire.Number]Def{
		1: {"debug_id", KVarint},
		3: {"to_proc", KVarint},
		4: {"to_thread", KVarint},
		5: {"reply", KVarint},
		7: {"flags", KVarint},
	})

	TracePacketDefaults = NewMessage("TracePacketDefaults", map[protowire.Number]Def{
		11: {"track_event_defaults", KBytes},
		58: {"timestamp_clock_id", KVarint},
	})
	TrackEventDefaults = NewMessage("TrackEventDefaults", map[protowire.Number]Def{
		11: {"track_uuid", KVarint},
	})
	InternedData = NewMessage("InternedData", map[protowire.Number]Def{
		2: {"event_names", KBytes},
	})
	EventName = NewMessage("EventName", map[protowire.Number]Def{
		1: {"iid", KVarint},
		2: {"name", KBytes},
	})
	TrackDescriptor = NewMessage("TrackDescriptor", map[protowire.Number]Def{
		1: {"uuid", KVarint},
		2: {"name", KBytes},
		3: {"process", KBytes},
		4: {"thread", KBytes},
	})
	ProcessDescriptor = NewMessage("ProcessDescriptor", map[protowire.Number]Def{
		1: {"pid", KVarint},
		2: {"cmdline", KBytes},
		6: {"process_name", KBytes},
	})
	ThreadDescriptor = NewMessage("ThreadDescriptor", map[protowire.Number]Def{
		1: {"pid", KVarint},
		2: {"tid", KVarint},
		5: {"thread_name", KBytes},
	})
	TrackEvent = NewMessage("TrackEvent", map[protowire.Number]Def{
		9:  {"type", KVarint},
		10: {"name_iid", KVarint},
		11: {"track_uuid", KVarint},
		23: {"name", KBytes},
	})
)

// sequence_flags bits.
const (
	SeqIncrementalStateCleared = 1
	SeqNeedsIncrementalState   = 2
)

// TrackEvent.Type values.
const (
	TrackEventSliceBegin = 1
	TrackEventSliceEnd   = 2
)
