package simdevice

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// memRowsLocked splits the app's memory into meminfo's categories so that
// every total matches: TOTAL Pss = PSS truth, TOTAL Rss = RSS truth, and
// the App Summary's Java Heap / Native Heap / Code / Graphics rows equal the
// workload's sizes.
func (w *World) memRowsLocked() []format.MemRow {
	m := w.memLocked()
	extra := m.rss - m.pss
	const stack, artPriv, otherDev = 1316, 1560, 16
	system := m.other * 3 / 10
	privOther := max(m.other-stack-system, 64)
	system = m.other - stack - privOther
	dalvikOther := privOther / 2
	unknown := privOther / 10
	otherMmap := privOther - dalvikOther - unknown - otherDev
	code := func(pct int64) int64 { return m.code * pct / 100 }
	so, jar, apk, ttf, dex := code(30), code(5), code(25), code(5), code(25)
	oat := m.code - so - jar - apk - ttf - dex
	egl := m.graphics / 5
	gl := m.graphics - egl
	java := max(m.java-artPriv, 0)
	rows := []format.MemRow{
		{Name: "Native Heap", Pss: m.native, PrivDirty: m.native, Rss: m.native + extra*6/100, Heap: true,
			HeapSize: m.native * 3 / 2, HeapAlloc: m.native * 5 / 4},
		{Name: "Dalvik Heap", Pss: java, PrivDirty: java, Rss: java + extra*12/100, Heap: true,
			HeapSize: m.java * 13 / 10, HeapAlloc: m.java * 9 / 10},
		{Name: "Dalvik Other", Pss: dalvikOther, PrivDirty: dalvikOther, Rss: dalvikOther + extra*12/100},
		{Name: "Stack", Pss: stack, PrivDirty: stack, Rss: stack},
		{Name: "Other dev", Pss: otherDev, PrivClean: otherDev, Rss: otherDev},
		{Name: ".so mmap", Pss: so + system, PrivClean: so, Rss: so + system + extra*40/100},
		{Name: ".jar mmap", Pss: jar, PrivClean: jar, Rss: jar + extra*15/100},
		{Name: ".apk mmap", Pss: apk, PrivClean: apk, Rss: apk},
		{Name: ".ttf mmap", Pss: ttf, PrivClean: ttf, Rss: ttf},
		{Name: ".dex mmap", Pss: dex, PrivClean: dex, Rss: dex},
		{Name: ".oat mmap", Pss: oat, PrivClean: oat, Rss: oat + extra*10/100},
		{Name: ".art mmap", Pss: artPriv, PrivDirty: artPriv, Rss: artPriv},
		{Name: "Other mmap", Pss: otherMmap, PrivDirty: otherMmap, Rss: otherMmap},
		{Name: "EGL mtrack", Pss: egl, PrivDirty: egl, Rss: egl},
		{Name: "GL mtrack", Pss: gl, PrivDirty: gl, Rss: gl},
		{Name: "Unknown", Pss: unknown, PrivDirty: unknown, Rss: unknown},
	}
	// The shares above add up to 95% of the RSS beyond PSS; the .art row
	// takes what integer division left so TOTAL Rss is the truth.
	var sum int64
	for _, r := range rows {
		sum += r.Rss
	}
	rows[11].Rss += m.rss - sum
	for i := range rows {
		if rows[i].Heap {
			rows[i].HeapFree = rows[i].HeapSize - rows[i].HeapAlloc
		}
	}
	return rows
}

// dumpsysMeminfo is `dumpsys meminfo [<pkg>|<pid>]`.
func (w *World) dumpsysMeminfo(args []string, stdout io.Writer) int {
	pkg := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			pkg = a
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	uptime, realtime := w.now/1e6, w.realtimeLocked()/1e6
	if pkg == "" {
		procs := []format.MeminfoProcess{{Pss: 389_172, Name: "system", Pid: 1000}, {Pss: 231_500, Name: "com.android.systemui", Pid: 1890}}
		if w.app != nil {
			procs = append(procs, format.MeminfoProcess{Pss: w.memLocked().pss, Name: w.wl.Package, Pid: w.app.pid, Comment: " / activities"})
		}
		format.WriteMeminfoSummary(stdout, uptime, realtime, procs)
		return 0
	}
	if w.app == nil || (pkg != w.wl.Package && pkg != fmt.Sprint(w.app.pid)) {
		fmt.Fprintf(stdout, "No process found for: %s\n", pkg)
		return 0
	}
	m := w.memLocked()
	format.WriteMeminfo(stdout, format.Meminfo{
		API: w.cfg.API, Uptime: uptime, Realtime: realtime, Pid: w.app.pid, Package: w.wl.Package,
		Rows: w.memRowsLocked(), Java: m.java, Native: m.native, Code: m.code, Graphics: m.graphics,
		Views: len(w.wl.Screen) + 2,
	})
	return 0
}
