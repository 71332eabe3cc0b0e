package simdevice

import (
	"io"
	"slices"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// trafficLocked is every UID's traffic in whole bytes, sorted by UID.
func (w *World) trafficLocked() []format.UIDTraffic {
	out := make([]format.UIDTraffic, 0, len(w.traffic))
	for uid, t := range w.traffic {
		out = append(out, format.UIDTraffic{UID: uid, Rx: int64(t.rx), Tx: int64(t.tx)})
	}
	slices.SortFunc(out, func(a, b format.UIDTraffic) int { return a.UID - b.UID })
	return out
}

// deviceBytes sums every UID's traffic: what the wlan0 interface carried.
func deviceBytes(uids []format.UIDTraffic) (rx, tx int64) {
	for _, t := range uids {
		rx += t.Rx
		tx += t.Tx
	}
	return rx, tx
}

// netDevLocked is /proc/net/dev and /proc/<pid>/net/dev.
func (w *World) netDevLocked() string { return format.NetDev(deviceBytes(w.trafficLocked())) }

// xtQtaguidLocked is /proc/net/xt_qtaguid/stats.
func (w *World) xtQtaguidLocked() string { return format.XtQtaguid(w.trafficLocked(), w.wl.UID) }

// dumpsysNetstats is `dumpsys netstats [detail|--full]`.
func (w *World) dumpsysNetstats(args []string, stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	uids := w.trafficLocked()
	rx, tx := deviceBytes(uids)
	// History buckets are an hour long and start at whole hours of wall time.
	st := w.bootWall.Unix() + w.now/1e9
	st -= st % 3600
	format.WriteNetstats(stdout, format.Netstats{
		API: w.cfg.API, Detail: slices.Contains(args, "detail") || slices.Contains(args, "--full"),
		Start: st, Rx: rx, Tx: tx, UIDs: uids, AppUID: w.wl.UID,
	})
	return 0
}
