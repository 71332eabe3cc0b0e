package trace

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/perfgate/perfgate/trace/internal/pb"
	"github.com/perfgate/perfgate/trace/internal/threadlog"
)

// builder turns packets into what an Analysis needs, holding only that:
// FrameTimeline frames, process names, and the events of threads that may be
// an app's main thread (the thread whose tid is its process's pid).
type builder struct {
	opts Options

	traceClock Clock
	clocks     clockTable
	seqs       map[uint32]*sequence

	// FrameTimeline.
	ftOpen        map[int64]ftStart
	expected      map[expKey][2]stamp
	actual        []rawFrame
	displayJank   map[int64]JankType
	displayFrames int
	haveFT        bool

	// Processes and threads.
	procNames map[int32]string
	markerPID map[int32]int32 // the process each thread's markers named last
	notMain   map[int32]bool
	threads   map[int32]*threadlog.Log
	cpus      map[uint32]*cpuState
	evScratch [][]byte // the events of the bundle being read
	names     []string
	nameIdx   map[string]uint32
	layers    map[string]string

	// TrackEvent.
	tracks    map[uint64]trackInfo
	trackLogs map[uint64][]teEvent

	haveSched, haveAtrace, haveTrackEvent, haveProcTree bool
	dataLoss                                            bool

	// A file can hold several traces one after another (the wire format
	// lets `cat a b` make one, and a ring buffer read twice holds the same
	// packets twice). part counts the traces begun after the first;
	// perTrace the packets a trace holds once, at its start, seen in this
	// one; dups what a later trace held again, counted once.
	part      int
	perTrace  map[protowire.Number]bool
	dups      map[string]int
	maxCookie int64 // the largest FrameTimeline cookie started
	// cookiesRead is maxCookie when the current trace began: an end of a
	// frame up to it belongs to one an earlier trace held.
	cookiesRead int64
	trackRead   map[uint64]stamp // per track, its last event in the earlier traces

	span       map[Clock][2]int64 // earliest and latest time seen, per clock but boottime
	bootSpan   [2]int64
	packets    int
	device     string
	kernel     string
	sdk        int
	rejected   map[string]int
	errs       []string
	errCount   int
	compressed int
}

// sequence is the state a packet sequence (one writer) carries from packet
// to packet: interned names, defaults and its own clocks.
type sequence struct {
	names        map[uint64]string
	defaultClock Clock
	defaultTrack uint64
	clocks       map[uint32]*seqClock
	broken       bool // packets were lost and the state was not cleared since
	part         int  // the trace of the file the sequence's last packet came in
}

type ftStart struct {
	kind   protowire.Number // which start (1–4)
	at     stamp
	token  int64
	dtoken int64
	pid    int32
	layer  string
	jank   JankType
	pres   PresentType
	pred   PredictionType
	onTime bool
	gpu    bool
}

type expKey struct {
	pid   int32
	token int64
	layer string
}

type rawFrame struct {
	ftStart
	end stamp
}

type cpuState struct {
	tid         int32 // the task that runs, after the last switch
	known       bool
	lastTs      int64 // the last plain event's time
	lastCompact int64 // the last compact switch's time
	lastWake    int64 // the latest compact waking's time
	// The same when the current trace of the file began: its events up
	// to them are ones an earlier trace held.
	readTs, readCompact, readWake int64
}

type trackInfo struct {
	pid, tid int32
	thread   bool
}

type teEvent struct {
	at   stamp
	name uint32
	kind threadlog.Kind
}

func newBuilder(opts Options) *builder {
	return &builder{
		opts:        opts,
		traceClock:  Boottime,
		seqs:        map[uint32]*sequence{},
		ftOpen:      map[int64]ftStart{},
		expected:    map[expKey][2]stamp{},
		displayJank: map[int64]JankType{},
		procNames:   map[int32]string{},
		markerPID:   map[int32]int32{},
		notMain:     map[int32]bool{},
		threads:     map[int32]*threadlog.Log{},
		cpus:        map[uint32]*cpuState{},
		nameIdx:     map[string]uint32{},
		layers:      map[string]string{},
		tracks:      map[uint64]trackInfo{},
		trackLogs:   map[uint64][]teEvent{},
		span:        map[Clock][2]int64{},
		rejected:    map[string]int{},
		perTrace:    map[protowire.Number]bool{},
		dups:        map[string]int{},
		trackRead:   map[uint64]stamp{},
	}
}

// newTrace starts the next trace of a file that holds several: what the
// earlier ones read is remembered, so that what this one holds again is
// counted once. Every sequence's incremental state is taken for lost
// until the new trace clears it: its packets cannot lean on the earlier
// trace's.
func (b *builder) newTrace() {
	b.part++
	clear(b.perTrace)
	for _, cs := range b.cpus {
		cs.readTs, cs.readCompact, cs.readWake = cs.lastTs, cs.lastCompact, cs.lastWake
	}
	for uuid, log := range b.trackLogs {
		if len(log) > 0 {
			b.trackRead[uuid] = log[len(log)-1].at
		}
	}
	b.cookiesRead = b.maxCookie
	for _, seq := range b.seqs {
		seq.broken = true
	}
}

// onceEach are the packets the tracing service writes once at the start of
// a trace: a second one begins another trace.
var onceEach = []protowire.Number{33, 45, 89} // trace_config, system_info, trace_uuid

// readAgain counts something an earlier trace of the file held.
func (b *builder) readAgain(what string) { b.dups[what]++ }

func (b *builder) reject(reason string) { b.rejected[reason]++ }

// packetFailed keeps the first few malformed-packet errors; the count of all
// of them is Rejected["packet_malformed"].
func (b *builder) packetFailed(p Packet, err error) {
	b.reject("packet_malformed")
	b.errCount++
	if len(b.errs) >= 5 {
		return
	}
	fe := &FormatError{Offset: p.Offset, Msg: err.Error()}
	if pe, ok := err.(*pb.PathError); ok {
		fe.Field, fe.Msg = "TracePacket", pe.Msg
		if pe.Field != "" {
			fe.Field += "." + pe.Field
		}
		if !p.Compressed {
			fe.Offset += int64(pe.Off)
		} else {
			fe.Msg = "in a compressed batch: " + fe.Msg
		}
	}
	b.errs = append(b.errs, fe.Error())
}

func (b *builder) see(at stamp) {
	if at.clock == Boottime {
		// The common case, kept out of the map.
		if b.bootSpan[0] == 0 || at.ns < b.bootSpan[0] {
			b.bootSpan[0] = at.ns
		}
		b.bootSpan[1] = max(b.bootSpan[1], at.ns)
		return
	}
	s, ok := b.span[at.clock]
	if !ok {
		b.span[at.clock] = [2]int64{at.ns, at.ns}
		return
	}
	s[0] = min(s[0], at.ns)
	s[1] = max(s[1], at.ns)
	b.span[at.clock] = s
}

// str is a string field's value, cut to maxString bytes: a name longer than
// that is taken for garbage, not kept whole.
func str(f pb.Field) string { return cutString(f.Bytes) }

func cutString(b []byte) string {
	if len(b) > maxString {
		return string(b[:maxString]) + "…"
	}
	return string(b)
}

// maxString bounds every string kept from a trace (slice, layer and process
// names).
const maxString = 1024

// layerName is the layer's name, one string per layer however many frames
// name it.
func (b *builder) layerName(v []byte) string {
	if s, ok := b.layers[string(v)]; ok {
		return s
	}
	s := cutString(v)
	b.layers[string(v)] = s
	return s
}

// nameOf is name for a name still in the packet's bytes, copied only the
// first time it is seen.
func (b *builder) nameOf(v []byte) uint32 {
	if i, ok := b.nameIdx[string(v)]; ok {
		return i
	}
	return b.name(cutString(v))
}

func (b *builder) name(s string) uint32 {
	if i, ok := b.nameIdx[s]; ok {
		return i
	}
	i := uint32(len(b.names))
	b.names = append(b.names, s)
	b.nameIdx[s] = i
	return i
}

// packet decodes one TracePacket.
func (b *builder) packet(p Packet) {
	b.packets++
	if p.Compressed {
		b.compressed++
	}
	if err := b.decodePacket(p.Data); err != nil {
		b.packetFailed(p, err)
	}
}

type packetFields struct {
	ts                                         uint64
	hasTs                                      bool
	clock                                      uint32
	hasClock                                   bool
	seq                                        uint32
	flags                                      uint64
	cleared, dropped, firstOnSeq               bool
	interned, defaults                         []byte
	ftrace, ptree, snap, te, td, ft, sysinfo   []byte
	hasFtrace, hasPtree, hasSnap, hasTe, hasTd bool
	hasFt, hasSysinfo                          bool
	once                                       protowire.Number // a packet of onceEach
}

func (b *builder) decodePacket(pkt []byte) error {
	pf, err := readPacketFields(pkt)
	if err != nil {
		return err
	}
	seq, ok := b.sequenceOf(&pf)
	if !ok {
		b.reject("packet_incremental_state_lost")
		return nil
	}
	if pf.defaults != nil {
		if err := b.defaults(pkt, pf.defaults, seq); err != nil {
			return pb.Within(err, "trace_packet_defaults(59)", 0)
		}
	}
	if pf.interned != nil {
		if err := b.interned(pkt, pf.interned, seq); err != nil {
			return pb.Within(err, "interned_data(12)", 0)
		}
	}
	if pf.hasSnap {
		return pb.Within(b.clockSnapshot(pkt, pf.snap, seq), "clock_snapshot(6)", 0)
	}
	at, ok := b.packetTime(&pf, seq)
	if !ok {
		b.reject("packet_unknown_clock")
		return nil
	}
	if b.opts.Packet != nil {
		ns, ok := b.clocks.convert(at.ns, at.clock, Boottime)
		b.opts.Packet(pkt, ns, ok && pf.hasTs)
	}
	return b.payload(pkt, &pf, at, seq)
}

// readPacketFields reads the TracePacket fields the analysis looks at.
func readPacketFields(pkt []byte) (packetFields, error) {
	var pf packetFields
	err := pb.Walk(pkt, pkt, pb.TracePacket, func(num protowire.Number, f pb.Field) error {
		switch num {
		case 8:
			pf.ts, pf.hasTs = f.Int, true
		case 58:
			pf.clock, pf.hasClock = uint32(f.Int), true
		case 10:
			pf.seq = uint32(f.Int)
		case 13:
			pf.flags = f.Int
		case 41:
			pf.cleared = f.Int != 0
		case 42:
			pf.dropped = f.Int != 0
		case 87:
			pf.firstOnSeq = f.Int != 0
		case 33, 89:
			pf.once = num
		case 12:
			pf.interned = f.Bytes
		case 59:
			pf.defaults = f.Bytes
		case 1:
			pf.ftrace, pf.hasFtrace = f.Bytes, true
		case 2:
			pf.ptree, pf.hasPtree = f.Bytes, true
		case 6:
			pf.snap, pf.hasSnap = f.Bytes, true
		case 11:
			pf.te, pf.hasTe = f.Bytes, true
		case 60:
			pf.td, pf.hasTd = f.Bytes, true
		case 76:
			pf.ft, pf.hasFt = f.Bytes, true
		case 45:
			pf.sysinfo, pf.hasSysinfo, pf.once = f.Bytes, true, num
		}
		return nil
	})
	return pf, err
}

// sequenceOf is the state of the packet's sequence, begun anew when the
// packet clears it; false when the packet needs state that was lost. A
// packet can begin another trace of the file.
func (b *builder) sequenceOf(pf *packetFields) (*sequence, bool) {
	seq := b.seqs[pf.seq]
	// Another trace begins with a packet each trace has once, seen again,
	// or with a sequence's first packet on a sequence this trace has had.
	if pf.once != 0 && b.perTrace[pf.once] || pf.firstOnSeq && seq != nil && seq.part == b.part {
		b.newTrace()
	}
	if pf.once != 0 {
		b.perTrace[pf.once] = true
	}
	if pf.dropped {
		// The service sets it on a sequence's first packet too: only a
		// sequence already seen in this trace lost anything.
		if seq != nil && seq.part == b.part {
			b.dataLoss = true
		}
	}
	if seq == nil {
		seq = &sequence{names: map[uint64]string{}, clocks: map[uint32]*seqClock{}, part: b.part}
		b.seqs[pf.seq] = seq
	}
	seq.part = b.part
	if pf.dropped {
		seq.broken = true
	}
	if pf.cleared || pf.flags&pb.SeqIncrementalStateCleared != 0 {
		*seq = sequence{names: map[uint64]string{}, clocks: map[uint32]*seqClock{}, part: b.part}
	}
	return seq, pf.flags&pb.SeqNeedsIncrementalState == 0 || !seq.broken
}

// packetTime is the packet's time on a builtin clock (zero without one);
// false when its clock is unknown.
func (b *builder) packetTime(pf *packetFields, seq *sequence) (stamp, bool) {
	var at stamp
	if !pf.hasTs {
		return at, true
	}
	clock := Boottime
	switch {
	case pf.hasClock:
		clock = Clock(pf.clock)
	case seq.defaultClock != 0:
		clock = seq.defaultClock
	}
	if sc := seq.clocks[uint32(clock)]; sc != nil {
		at = sc.resolve(pf.ts)
	} else if clock >= 64 {
		return at, false
	} else {
		at = stamp{clock: clock, ns: int64(pf.ts)}
	}
	if at.ns > 0 {
		b.see(at)
	}
	return at, true
}

// payload decodes what the packet carries.
func (b *builder) payload(pkt []byte, pf *packetFields, at stamp, seq *sequence) error {
	switch {
	case pf.hasFt:
		if !pf.hasTs {
			b.reject("frametimeline_no_timestamp")
			return nil
		}
		return pb.Within(b.frameTimeline(pkt, pf.ft, at), "frame_timeline_event(76)", 0)
	case pf.hasFtrace:
		return pb.Within(b.ftraceBundle(pkt, pf.ftrace), "ftrace_events(1)", 0)
	case pf.hasPtree:
		return pb.Within(b.processTree(pkt, pf.ptree), "process_tree(2)", 0)
	case pf.hasTd:
		return pb.Within(b.trackDescriptor(pkt, pf.td), "track_descriptor(60)", 0)
	case pf.hasTe:
		if !pf.hasTs {
			b.reject("track_event_no_timestamp")
			return nil
		}
		return pb.Within(b.trackEvent(pkt, pf.te, at, seq), "track_event(11)", 0)
	case pf.hasSysinfo:
		return pb.Within(b.systemInfo(pkt, pf.sysinfo), "system_info(45)", 0)
	}
	return nil
}

func (b *builder) defaults(pkt, data []byte, seq *sequence) error {
	return pb.Walk(pkt, data, pb.TracePacketDefaults, func(num protowire.Number, f pb.Field) error {
		switch num {
		case 58:
			seq.defaultClock = Clock(f.Int)
		case 11:
			return pb.Walk(pkt, f.Bytes, pb.TrackEventDefaults, func(_ protowire.Number, g pb.Field) error {
				seq.defaultTrack = g.Int
				return nil
			})
		}
		return nil
	})
}

func (b *builder) interned(pkt, data []byte, seq *sequence) error {
	return pb.Walk(pkt, data, pb.InternedData, func(_ protowire.Number, f pb.Field) error {
		var iid uint64
		var name string
		err := pb.Walk(pkt, f.Bytes, pb.EventName, func(num protowire.Number, g pb.Field) error {
			if num == 1 {
				iid = g.Int
			} else {
				name = str(g)
			}
			return nil
		})
		if err == nil {
			seq.names[iid] = name
		}
		return err
	})
}

func (b *builder) clockSnapshot(pkt, data []byte, seq *sequence) error {
	type clk struct {
		id          uint32
		ts          uint64
		incremental bool
		unit        uint64
	}
	var cs []clk
	primary := uint64(0)
	err := pb.Walk(pkt, data, pb.ClockSnapshot, func(num protowire.Number, f pb.Field) error {
		if num == 2 {
			primary = f.Int
			return nil
		}
		var c clk
		err := pb.Walk(pkt, f.Bytes, pb.Clock, func(n protowire.Number, g pb.Field) error {
			switch n {
			case 1:
				c.id = uint32(g.Int)
			case 2:
				c.ts = g.Int
			case 3:
				c.incremental = g.Int != 0
			case 4:
				c.unit = g.Int
			}
			return nil
		})
		cs = append(cs, c)
		return err
	})
	if err != nil {
		return err
	}
	if primary != 0 {
		b.traceClock = Clock(primary)
	}
	global := map[Clock]int64{}
	for _, c := range cs {
		if c.id < 64 && (c.unit == 0 || c.unit == 1) && !c.incremental {
			global[Clock(c.id)] = int64(c.ts)
		}
	}
	if len(global) >= 2 {
		b.clocks.add(global)
	}
	// A sequence's own clocks are tied to a builtin clock of the same
	// snapshot (boottime when it holds it).
	var ref stamp
	if v, ok := global[Boottime]; ok {
		ref = stamp{Boottime, v}
	} else {
		for k, v := range global {
			if ref.clock == 0 || k < ref.clock {
				ref = stamp{k, v}
			}
		}
	}
	for _, c := range cs {
		if c.id < 64 {
			continue
		}
		if ref.clock == 0 {
			b.reject("clock_snapshot_without_builtin_clock")
			continue
		}
		unit := int64(c.unit)
		if unit <= 0 {
			unit = 1
		}
		seq.clocks[c.id] = &seqClock{incremental: c.incremental, unit: unit, last: int64(c.ts), snapValue: int64(c.ts), ref: ref}
	}
	return nil
}

func (b *builder) systemInfo(pkt, data []byte) error {
	return pb.Walk(pkt, data, pb.SystemInfo, func(num protowire.Number, f pb.Field) error {
		switch num {
		case 2:
			b.device = str(f)
		case 5:
			b.sdk = int(f.Int)
		case 1:
			return pb.Walk(pkt, f.Bytes, pb.Utsname, func(_ protowire.Number, g pb.Field) error {
				b.kernel = str(g)
				return nil
			})
		}
		return nil
	})
}

// frameTimeline decodes one FrameTimelineEvent.
func (b *builder) frameTimeline(pkt, data []byte, at stamp) error {
	b.haveFT = true
	return pb.Walk(pkt, data, pb.FrameTimelineEvent, func(num protowire.Number, f pb.Field) error {
		if num == 5 {
			var cookie int64
			err := pb.Walk(pkt, f.Bytes, pb.FrameEnd, func(_ protowire.Number, g pb.Field) error {
				cookie = g.Int64()
				return nil
			})
			if err != nil {
				return err
			}
			b.frameEnd(cookie, at)
			return nil
		}
		s := ftStart{kind: num, at: at}
		var cookie int64
		var err error
		m, renumber := pb.SurfaceFrameStart, func(n protowire.Number) protowire.Number { return n }
		if num == 1 || num == 2 {
			m, renumber = pb.DisplayFrameStart, displayAsSurface
		}
		err = pb.Walk(pkt, f.Bytes, m, func(n protowire.Number, g pb.Field) error {
			switch renumber(n) {
			case 1:
				cookie = g.Int64()
			case 2:
				s.token = g.Int64()
			case 3:
				s.dtoken = g.Int64()
			case 4:
				s.pid = g.Int32()
			case 5:
				s.layer = b.layerName(g.Bytes)
			case 6:
				s.pres = PresentType(g.Int32())
			case 7:
				s.onTime = g.Int != 0
			case 8:
				s.gpu = g.Int != 0
			case 9:
				s.jank = JankType(uint32(g.Int))
			case 10:
				s.pred = PredictionType(g.Int32())
			}
			return nil
		})
		if err != nil {
			return err
		}
		if prev, open := b.ftOpen[cookie]; open && prev != s {
			b.reject("frametimeline_no_end") // its cookie was reused before it ended
		}
		// (The same start again is an earlier trace's frame that had not
		// ended, read again.)
		b.ftOpen[cookie] = s
		b.maxCookie = max(b.maxCookie, cookie)
		return nil
	})
}

// displayAsSurface gives a display frame start's field the number of the
// same field in a surface frame start, which has two more (the display
// frame token and the layer name).
func displayAsSurface(n protowire.Number) protowire.Number {
	switch {
	case n == 3: // pid
		return 4
	case n >= 4:
		return n + 2
	}
	return n
}

func (b *builder) frameEnd(cookie int64, at stamp) {
	s, ok := b.ftOpen[cookie]
	if !ok {
		if b.part > 0 && cookie <= b.cookiesRead {
			// SurfaceFlinger's cookies grow: the end of a frame an earlier
			// trace of the file held, start and end.
			b.readAgain("frametimeline_events")
			return
		}
		b.reject("frametimeline_end_without_start")
		return
	}
	delete(b.ftOpen, cookie)
	end := at
	if end.clock != s.at.clock {
		var ok bool
		end.ns, ok = b.clocks.convert(at.ns, at.clock, s.at.clock)
		end.clock = s.at.clock
		if !ok {
			b.reject("frametimeline_unknown_clock")
			return
		}
	}
	if end.ns < s.at.ns {
		b.reject("frametimeline_end_before_start")
		return
	}
	switch s.kind {
	case 2:
		// A display frame is its token: one another trace of the file
		// held too is counted once.
		if _, again := b.displayJank[s.token]; again {
			b.readAgain("display_frames")
			return
		}
		b.displayFrames++
		b.displayJank[s.token] = s.jank
	case 3:
		b.expected[expKey{s.pid, s.token, s.layer}] = [2]stamp{s.at, end}
	case 4:
		b.actual = append(b.actual, rawFrame{ftStart: s, end: end})
	}
}

// thread is the event log of tid, or nil when tid cannot be a main thread
// worth keeping.
func (b *builder) thread(tid int32) *threadlog.Log {
	if tid <= 0 || b.notMain[tid] {
		return nil
	}
	t := b.threads[tid]
	if t == nil {
		t = &threadlog.Log{}
		b.threads[tid] = t
	}
	return t
}

// notMainThread drops what was kept of tid: it is not a main thread, or not
// one of the package's.
func (b *builder) notMainThread(tid int32) {
	b.notMain[tid] = true
	delete(b.threads, tid)
}

// process records a process's name; with a package to look at, the main
// thread of another process is not kept. An empty name is a kernel thread's
// (apps always have a command line).
func (b *builder) process(pid int32, name string) {
	if pid <= 0 {
		return
	}
	if name != "" {
		b.procNames[pid] = name
	}
	if b.opts.Package == "" || provisionalName(name) {
		return
	}
	if isPackageProcess(name, b.opts.Package) {
		delete(b.notMain, pid)
	} else {
		b.notMainThread(pid)
	}
}

// provisionalName is a process name an app has before it is renamed after
// its package (a forked zygote).
func provisionalName(name string) bool {
	return strings.HasPrefix(name, "zygote") || strings.HasPrefix(name, "usap") || name == "<pre-initialized>" || strings.HasPrefix(name, "webview_zygote")
}

// isPackageLayer: the layer is one of pkg's windows ("TX - <pkg>/<activity>#N"
// on Android 12+, "<pkg>/<activity>#N" before, or a SurfaceView of one).
// Layers of other processes can name the package too (system_server's
// animation leashes "Surface(name=… <pkg>/<activity>)…"), so only the start
// counts.
func isPackageLayer(layer, pkg string) bool {
	l := strings.TrimPrefix(layer, "TX - ")
	for _, p := range []string{"", "SurfaceView[", "SurfaceView - "} {
		if strings.HasPrefix(l, p+pkg+"/") {
			return true
		}
	}
	return false
}

// isPackageProcess: the process named name belongs to pkg (its main process
// or one of its ":name" processes).
func isPackageProcess(name, pkg string) bool {
	return name == pkg || strings.HasPrefix(name, pkg+":")
}

func (b *builder) processTree(pkt, data []byte) error {
	b.haveProcTree = true
	return pb.Walk(pkt, data, pb.ProcessTree, func(num protowire.Number, f pb.Field) error {
		if num == 1 {
			var pid, ppid int32
			var name string
			var kthread bool
			first := true
			err := pb.Walk(pkt, f.Bytes, pb.Process, func(n protowire.Number, g pb.Field) error {
				switch n {
				case 1:
					pid = g.Int32()
				case 2:
					ppid = g.Int32()
				case 8:
					kthread = g.Int != 0
				case 3:
					if first {
						name, first = str(g), false
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if kthread || ppid == 2 || pid == 2 {
				// A kernel thread (kthreadd's child) draws no frames.
				b.notMainThread(pid)
				return nil
			}
			b.process(pid, name)
			return nil
		}
		var tid, tgid int32
		err := pb.Walk(pkt, f.Bytes, pb.Thread, func(n protowire.Number, g pb.Field) error {
			switch n {
			case 1:
				tid = g.Int32()
			case 3:
				tgid = g.Int32()
			}
			return nil
		})
		if err == nil && tid > 0 && tgid > 0 && tid != tgid {
			b.notMainThread(tid)
		}
		return err
	})
}

func (b *builder) trackDescriptor(pkt, data []byte) error {
	var uuid uint64
	var info trackInfo
	var pname string
	var hasProc bool
	err := pb.Walk(pkt, data, pb.TrackDescriptor, func(num protowire.Number, f pb.Field) error {
		switch num {
		case 1:
			uuid = f.Int
		case 3:
			hasProc = true
			return pb.Walk(pkt, f.Bytes, pb.ProcessDescriptor, func(n protowire.Number, g pb.Field) error {
				switch n {
				case 1:
					info.pid = g.Int32()
				case 2:
					if pname == "" {
						pname = str(g)
					}
				case 6:
					pname = str(g)
				}
				return nil
			})
		case 4:
			info.thread = true
			return pb.Walk(pkt, f.Bytes, pb.ThreadDescriptor, func(n protowire.Number, g pb.Field) error {
				switch n {
				case 1:
					info.pid = g.Int32()
				case 2:
					info.tid = int32(g.Int64())
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if hasProc && pname != "" {
		b.process(info.pid, pname)
	}
	if info.thread {
		b.tracks[uuid] = info
		if info.tid > 0 && info.pid > 0 && info.tid != info.pid {
			b.notMainThread(info.tid)
		}
	}
	return nil
}

func (b *builder) trackEvent(pkt, data []byte, at stamp, seq *sequence) error {
	var typ uint64
	var uuid uint64
	var name string
	var iid uint64
	var hasName, hasIid bool
	err := pb.Walk(pkt, data, pb.TrackEvent, func(num protowire.Number, f pb.Field) error {
		switch num {
		case 9:
			typ = f.Int
		case 10:
			iid, hasIid = f.Int, true
		case 11:
			uuid = f.Int
		case 23:
			name, hasName = str(f), true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if typ != pb.TrackEventSliceBegin && typ != pb.TrackEventSliceEnd {
		return nil
	}
	if uuid == 0 {
		uuid = seq.defaultTrack
	}
	if uuid == 0 {
		b.reject("track_event_no_track")
		return nil
	}
	b.haveTrackEvent = true
	if r, ok := b.trackRead[uuid]; ok && r.clock == at.clock && at.ns <= r.ns {
		// An event of the track an earlier trace of the file held: a
		// track's events come from one thread, in time order.
		b.readAgain("track_events")
		return nil
	}
	ev := teEvent{at: at, kind: threadlog.End}
	if typ == pb.TrackEventSliceBegin {
		ev.kind = threadlog.Begin
		switch {
		case hasName:
		case hasIid:
			n, ok := seq.names[iid]
			if !ok {
				n = "[unknown name iid " + strconv.FormatUint(iid, 10) + "]"
				b.reject("track_event_unknown_name")
			}
			name = n
		default:
			name = "[unnamed]"
		}
		ev.name = b.name(name)
	}
	b.trackLogs[uuid] = append(b.trackLogs[uuid], ev)
	return nil
}
