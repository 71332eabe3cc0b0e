package simdevice

import (
	"fmt"
	"io"
	"strings"
)

// memRow is one category row of dumpsys meminfo, in KiB.
type memRow struct {
	name                          string
	pss, privDirty, privClean     int64
	swap, rss                     int64
	heapSize, heapAlloc, heapFree int64
	heap                          bool
}

// memRowsLocked splits the app's memory into meminfo's categories so that
// every total matches: TOTAL Pss = PSS truth, TOTAL Rss = RSS truth, and
// the App Summary's Java Heap / Native Heap / Code / Graphics rows equal the
// workload's sizes.
func (w *World) memRowsLocked() []memRow {
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
	rows := []memRow{
		{name: "Native Heap", pss: m.native, privDirty: m.native, rss: m.native + extra*6/100, heap: true,
			heapSize: m.native * 3 / 2, heapAlloc: m.native * 5 / 4},
		{name: "Dalvik Heap", pss: java, privDirty: java, rss: java + extra*12/100, heap: true,
			heapSize: m.java * 13 / 10, heapAlloc: m.java * 9 / 10},
		{name: "Dalvik Other", pss: dalvikOther, privDirty: dalvikOther, rss: dalvikOther + extra*12/100},
		{name: "Stack", pss: stack, privDirty: stack, rss: stack},
		{name: "Other dev", pss: otherDev, privClean: otherDev, rss: otherDev},
		{name: ".so mmap", pss: so + system, privClean: so, rss: so + system + extra*40/100},
		{name: ".jar mmap", pss: jar, privClean: jar, rss: jar + extra*15/100},
		{name: ".apk mmap", pss: apk, privClean: apk, rss: apk},
		{name: ".ttf mmap", pss: ttf, privClean: ttf, rss: ttf},
		{name: ".dex mmap", pss: dex, privClean: dex, rss: dex},
		{name: ".oat mmap", pss: oat, privClean: oat, rss: oat + extra*10/100},
		{name: ".art mmap", pss: artPriv, privDirty: artPriv, rss: artPriv},
		{name: "Other mmap", pss: otherMmap, privDirty: otherMmap, rss: otherMmap},
		{name: "EGL mtrack", pss: egl, privDirty: egl, rss: egl},
		{name: "GL mtrack", pss: gl, privDirty: gl, rss: gl},
		{name: "Unknown", pss: unknown, privDirty: unknown, rss: unknown},
	}
	// The shares above add up to 95% of the RSS beyond PSS; the .art row
	// takes what integer division left so TOTAL Rss is the truth.
	var sum int64
	for _, r := range rows {
		sum += r.rss
	}
	rows[11].rss += m.rss - sum
	for i := range rows {
		if rows[i].heap {
			rows[i].heapFree = rows[i].heapSize - rows[i].heapAlloc
		}
	}
	return rows
}

// dumpsysMeminfo is `dumpsys meminfo <pkg>`: the API 23-28 layout
// (droidmonitor API 23 capture: Swapped Dirty, App Summary with "TOTAL:")
// on API 28, the Android 11+ layout (frameprobe API 34 capture: Rss Total
// column, TOTAL PSS / TOTAL RSS / TOTAL SWAP PSS) from API 30.
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
	if pkg == "" {
		return w.meminfoSummaryLocked(stdout)
	}
	if w.app == nil || (pkg != w.wl.Package && pkg != fmt.Sprint(w.app.pid)) {
		fmt.Fprintf(stdout, "No process found for: %s\n", pkg)
		return 0
	}
	modern := w.cfg.API >= 30
	rows := w.memRowsLocked()
	var b strings.Builder
	if w.cfg.API >= 29 {
		b.WriteString("Applications Memory Usage (in Kilobytes):\n")
	} else {
		b.WriteString("Applications Memory Usage (kB):\n")
	}
	fmt.Fprintf(&b, "Uptime: %d Realtime: %d\n\n", w.now/1e6, w.realtimeLocked()/1e6)
	fmt.Fprintf(&b, "** MEMINFO in pid %d [%s] **\n", w.app.pid, w.wl.Package)
	if modern {
		b.WriteString("                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap\n")
		b.WriteString("                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free\n")
		b.WriteString("                ------   ------   ------   ------   ------   ------   ------   ------\n")
	} else {
		b.WriteString("                   Pss  Private  Private  Swapped     Heap     Heap     Heap\n")
		b.WriteString("                 Total    Dirty    Clean    Dirty     Size    Alloc     Free\n")
		b.WriteString("                ------   ------   ------   ------   ------   ------   ------\n")
	}
	var tot memRow
	tot.name = "TOTAL"
	for _, r := range rows {
		tot.pss += r.pss
		tot.privDirty += r.privDirty
		tot.privClean += r.privClean
		tot.swap += r.swap
		tot.rss += r.rss
		tot.heapSize += r.heapSize
		tot.heapAlloc += r.heapAlloc
		tot.heapFree += r.heapFree
	}
	tot.heap = true
	for _, r := range append(rows, tot) {
		fmt.Fprintf(&b, "%13s %8d %8d %8d %8d", r.name, r.pss, r.privDirty, r.privClean, r.swap)
		if modern {
			fmt.Fprintf(&b, " %8d", r.rss)
		}
		if r.heap {
			fmt.Fprintf(&b, " %8d %8d %8d", r.heapSize, r.heapAlloc, r.heapFree)
		}
		b.WriteByte('\n')
	}
	m := w.memLocked()
	const stack = 1316
	priv := tot.privDirty + tot.privClean
	privOther := priv - m.java - m.native - m.code - stack - m.graphics
	system := tot.pss - priv
	rssJava := rows[1].rss + rows[11].rss
	rssCode := rows[5].rss + rows[6].rss + rows[7].rss + rows[8].rss + rows[9].rss + rows[10].rss
	rssKnown := rssJava + rows[0].rss + rssCode + rows[3].rss + m.graphics
	b.WriteString(" \n App Summary\n")
	if modern {
		b.WriteString("                       Pss(KB)                        Rss(KB)\n                        ------                         ------\n")
		fmt.Fprintf(&b, "           Java Heap: %8d                       %8d\n", m.java, rssJava)
		fmt.Fprintf(&b, "         Native Heap: %8d                       %8d\n", m.native, rows[0].rss)
		fmt.Fprintf(&b, "                Code: %8d                       %8d\n", m.code, rssCode)
		fmt.Fprintf(&b, "               Stack: %8d                       %8d\n", stack, rows[3].rss)
		fmt.Fprintf(&b, "            Graphics: %8d                       %8d\n", m.graphics, m.graphics)
		fmt.Fprintf(&b, "       Private Other: %8d\n", privOther)
		fmt.Fprintf(&b, "              System: %8d\n", system)
		fmt.Fprintf(&b, "             Unknown:                                %8d\n", tot.rss-rssKnown)
		fmt.Fprintf(&b, " \n           TOTAL PSS: %8d            TOTAL RSS: %8d       TOTAL SWAP PSS: %8d\n", tot.pss, tot.rss, tot.swap)
	} else {
		b.WriteString("                       Pss(KB)\n                        ------\n")
		fmt.Fprintf(&b, "           Java Heap: %8d\n         Native Heap: %8d\n                Code: %8d\n               Stack: %8d\n            Graphics: %8d\n       Private Other: %8d\n              System: %8d\n",
			m.java, m.native, m.code, stack, m.graphics, privOther, system)
		fmt.Fprintf(&b, " \n               TOTAL: %8d      TOTAL SWAP (KB): %8d\n", tot.pss, tot.swap)
	}
	fmt.Fprintf(&b, ` 
 Objects
               Views:       %2d         ViewRootImpl:        1
         AppContexts:        6           Activities:        1
              Assets:       30        AssetManagers:        0
       Local Binders:       35        Proxy Binders:       77
       Parcel memory:       11         Parcel count:       46
    Death Recipients:        4             WebViews:        0
 
 SQL
         MEMORY_USED:        0
  PAGECACHE_OVERFLOW:        0          MALLOC_SIZE:        0
 
`, len(w.wl.Screen)+2)
	io.WriteString(stdout, b.String())
	return 0
}

// meminfoSummaryLocked is a bare `dumpsys meminfo`: total PSS by process.
func (w *World) meminfoSummaryLocked(stdout io.Writer) int {
	var b strings.Builder
	b.WriteString("Applications Memory Usage (in Kilobytes):\n")
	fmt.Fprintf(&b, "Uptime: %d Realtime: %d\n\nTotal PSS by process:\n", w.now/1e6, w.realtimeLocked()/1e6)
	fmt.Fprintf(&b, "    389,172K: system (pid 1000)\n    231,500K: com.android.systemui (pid 1890)\n")
	if w.app != nil {
		fmt.Fprintf(&b, "    %sK: %s (pid %d / activities)\n", commaK(w.memLocked().pss), w.wl.Package, w.app.pid)
	}
	io.WriteString(stdout, b.String())
	return 0
}

// commaK prints n with thousands separators, as meminfo's summary does.
func commaK(n int64) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
