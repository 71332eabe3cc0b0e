package causes

import (
	"github.com/perfgate/perfgate/android/logcat"
)

// BlockDelivery is the Kind of a block made of a "Slow delivery" line.
const BlockDelivery = "delivery"

// The message a HyperOS "PerfMonitor doFrame" line reports: a frame's
// Choreographer message, as AOSP's Looper names it.
const (
	frameHandler  = "android.view.Choreographer$FrameHandler"
	frameReceiver = "android.view.Choreographer$FrameDisplayEventReceiver"
)

// DeliveryBlockOf makes a Looper "Slow delivery took N ms" line logged at
// device time loggedNs a Block of Kind BlockDelivery. Such a line says how
// late a message started, not how long it ran: the thread was busy for
// those N ms with work that came before the message (one message or
// several, each of them too short to be logged, or none logged because
// the phone logs deliveries only). The block is that busy time, and its
// handler, callback and what name the message that waited, not the work
// that made it wait (the stacks sampled inside the block name that).
// Looper logs the line once the message has run, so the wait ended ranMs
// before loggedNs: the message's own "Slow dispatch" time, 0 when it had
// none (it ran in less than the dispatch threshold, which is then how far
// off the block can be).
func DeliveryBlockOf(l logcat.LooperSlow, loggedNs, ranMs int64) Block {
	end := loggedNs - ranMs*1e6
	return Block{StartNs: end - l.Millis*1e6, EndNs: end, Ms: l.Millis, Handler: l.Handler, Callback: l.CallbackClass(),
		What: l.What, Kind: BlockDelivery}
}

// OEMBlock is a block an OEM Looper line tells of, and the message's
// sequence number (-1 when not given), by which the same message named in
// several lines is one block.
type OEMBlock struct {
	Block
	Seq int64
}

// OEMBlocksOf makes the messages an OEM Looper line (logcat.LooperReport)
// logged at device time loggedNs names blocks, those of at least minMs
// that the line places in time:
//   - a MIUI "Long Msg": the slow message itself, which ended when it
//     was logged;
//   - a HyperOS "PerfMonitor doFrame": the frame's own message (time=),
//     named as AOSP names it (Choreographer$FrameHandler);
//   - the message listed right before the line's own one (MIUI's last
//     "msg N of N", HyperOS's msgIndex equal to historyMsgCount), which
//     ended when the own message started (loggedNs less its wall= or
//     time=), and each listed one before it whose sequence number is the
//     next one's less one: messages that were late ran back to back.
//
// A line's own message that was late (a MIUI "Activity … is N ms late",
// a PerfMonitor looperActivity) is not a block: it waited, the listed
// messages are what it waited for. Listed messages that cannot be placed
// (others ran between them and the next placed one for a time the line
// does not give) are left out.
func OEMBlocksOf(r logcat.LooperReport, loggedNs, minMs int64) []OEMBlock {
	var out []OEMBlock
	add := func(m logcat.LooperMsg, endNs int64, handler, callback string) {
		if m.WallMs >= minMs {
			out = append(out, OEMBlock{Seq: m.Seq, Block: Block{StartNs: endNs - m.WallMs*1e6, EndNs: endNs, Ms: m.WallMs,
				Handler: handler, Callback: logcat.LooperSlow{Callback: callback}.CallbackClass(), What: m.What}})
		}
	}
	switch {
	case r.Shape == logcat.LooperLongMsg:
		add(r.Own, loggedNs, r.Own.Handler, r.Own.Callback)
		return out
	case r.Shape == logcat.LooperPerfMonitor && r.Subject == "doFrame" && r.Own.WallMs >= 0:
		add(r.Own, loggedNs, frameHandler, frameReceiver)
	}
	n := len(r.History)
	if n == 0 || r.Own.WallMs < 0 || r.History[n-1].Index != r.Count {
		return out
	}
	end := loggedNs - r.Own.WallMs*1e6
	for i := n - 1; i >= 0; i-- {
		m := r.History[i]
		if i < n-1 && (m.Seq < 0 || m.Seq+1 != r.History[i+1].Seq || m.Index+1 != r.History[i+1].Index) {
			break
		}
		add(m, end, m.Handler, m.Callback)
		end -= m.WallMs * 1e6
	}
	return out
}
