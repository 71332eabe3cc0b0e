package format

import (
	"fmt"
	"io"
	"strings"
)

// MemRow is one category row of dumpsys meminfo, in KiB. Name is the
// category as the phone prints it ("Native Heap", ".so mmap" …).
type MemRow struct {
	Name                          string
	Pss, PrivDirty, PrivClean     int64
	Swap, Rss                     int64
	HeapSize, HeapAlloc, HeapFree int64
	Heap                          bool // the row has the heap columns
}

// Meminfo is `dumpsys meminfo <pkg>` of one process.
type Meminfo struct {
	API              int
	Uptime, Realtime int64 // ms
	Pid              int
	Package          string
	// Rows are the categories, which must include "Native Heap", "Dalvik
	// Heap", "Stack", ".art mmap" and the code mappings (.so, .jar, .apk,
	// .ttf, .dex, .oat) that the App Summary adds up.
	Rows []MemRow
	// The App Summary's PSS rows, in KiB.
	Java, Native, Code, Graphics int64
	Views                        int // Objects: Views
}

// row returns the row named name (zero if there is none).
func (m Meminfo) row(name string) MemRow {
	for _, r := range m.Rows {
		if r.Name == name {
			return r
		}
	}
	return MemRow{}
}

// WriteMeminfo writes m: the API 23-28 layout (droidmonitor API 23
// capture: Swapped Dirty, App Summary with "TOTAL:") on API 28, the Android
// 11+ layout (frameprobe API 34 capture: Rss Total column, TOTAL PSS /
// TOTAL RSS / TOTAL SWAP PSS) from API 30.
func WriteMeminfo(w io.Writer, m Meminfo) {
	modern := m.API >= 30
	var b strings.Builder
	if m.API >= 29 {
		b.WriteString("Applications Memory Usage (in Kilobytes):\n")
	} else {
		b.WriteString("Applications Memory Usage (kB):\n")
	}
	fmt.Fprintf(&b, "Uptime: %d Realtime: %d\n\n", m.Uptime, m.Realtime)
	fmt.Fprintf(&b, "** MEMINFO in pid %d [%s] **\n", m.Pid, m.Package)
	tot := writeMemTable(&b, m, modern)
	writeAppSummary(&b, m, tot, modern)
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
 
`, m.Views)
	io.WriteString(w, b.String())
}

// writeMemTable writes the category rows and their TOTAL row, which it
// returns.
func writeMemTable(b *strings.Builder, m Meminfo, modern bool) MemRow {
	if modern {
		b.WriteString("                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap\n")
		b.WriteString("                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free\n")
		b.WriteString("                ------   ------   ------   ------   ------   ------   ------   ------\n")
	} else {
		b.WriteString("                   Pss  Private  Private  Swapped     Heap     Heap     Heap\n")
		b.WriteString("                 Total    Dirty    Clean    Dirty     Size    Alloc     Free\n")
		b.WriteString("                ------   ------   ------   ------   ------   ------   ------\n")
	}
	tot := MemRow{Name: "TOTAL", Heap: true}
	for _, r := range m.Rows {
		tot.Pss += r.Pss
		tot.PrivDirty += r.PrivDirty
		tot.PrivClean += r.PrivClean
		tot.Swap += r.Swap
		tot.Rss += r.Rss
		tot.HeapSize += r.HeapSize
		tot.HeapAlloc += r.HeapAlloc
		tot.HeapFree += r.HeapFree
	}
	for _, r := range append(m.Rows, tot) {
		fmt.Fprintf(b, "%13s %8d %8d %8d %8d", r.Name, r.Pss, r.PrivDirty, r.PrivClean, r.Swap)
		if modern {
			fmt.Fprintf(b, " %8d", r.Rss)
		}
		if r.Heap {
			fmt.Fprintf(b, " %8d %8d %8d", r.HeapSize, r.HeapAlloc, r.HeapFree)
		}
		b.WriteByte('\n')
	}
	return tot
}

// writeAppSummary writes the App Summary: the PSS (and from API 30 the RSS)
// of Java, native, code, stack, graphics, other and system memory.
func writeAppSummary(b *strings.Builder, m Meminfo, tot MemRow, modern bool) {
	stack := m.row("Stack")
	priv := tot.PrivDirty + tot.PrivClean
	privOther := priv - m.Java - m.Native - m.Code - stack.Pss - m.Graphics
	system := tot.Pss - priv
	rssJava := m.row("Dalvik Heap").Rss + m.row(".art mmap").Rss
	var rssCode int64
	for _, name := range []string{".so mmap", ".jar mmap", ".apk mmap", ".ttf mmap", ".dex mmap", ".oat mmap"} {
		rssCode += m.row(name).Rss
	}
	rssNative := m.row("Native Heap").Rss
	rssKnown := rssJava + rssNative + rssCode + stack.Rss + m.Graphics
	b.WriteString(" \n App Summary\n")
	if modern {
		b.WriteString("                       Pss(KB)                        Rss(KB)\n                        ------                         ------\n")
		fmt.Fprintf(b, "           Java Heap: %8d                       %8d\n", m.Java, rssJava)
		fmt.Fprintf(b, "         Native Heap: %8d                       %8d\n", m.Native, rssNative)
		fmt.Fprintf(b, "                Code: %8d                       %8d\n", m.Code, rssCode)
		fmt.Fprintf(b, "               Stack: %8d                       %8d\n", stack.Pss, stack.Rss)
		fmt.Fprintf(b, "            Graphics: %8d                       %8d\n", m.Graphics, m.Graphics)
		fmt.Fprintf(b, "       Private Other: %8d\n", privOther)
		fmt.Fprintf(b, "              System: %8d\n", system)
		fmt.Fprintf(b, "             Unknown:                                %8d\n", tot.Rss-rssKnown)
		fmt.Fprintf(b, " \n           TOTAL PSS: %8d            TOTAL RSS: %8d       TOTAL SWAP PSS: %8d\n", tot.Pss, tot.Rss, tot.Swap)
	} else {
		b.WriteString("                       Pss(KB)\n                        ------\n")
		fmt.Fprintf(b, "           Java Heap: %8d\n         Native Heap: %8d\n                Code: %8d\n               Stack: %8d\n            Graphics: %8d\n       Private Other: %8d\n              System: %8d\n",
			m.Java, m.Native, m.Code, stack.Pss, m.Graphics, privOther, system)
		fmt.Fprintf(b, " \n               TOTAL: %8d      TOTAL SWAP (KB): %8d\n", tot.Pss, tot.Swap)
	}
}

// MeminfoProcess is one line of a bare `dumpsys meminfo`.
type MeminfoProcess struct {
	Pss     int64 // KiB
	Name    string
	Pid     int
	Comment string // " / activities" for a process with activities
}

// WriteMeminfoSummary writes a bare `dumpsys meminfo`: total PSS by
// process, the system's processes first.
func WriteMeminfoSummary(w io.Writer, uptime, realtime int64, procs []MeminfoProcess) {
	var b strings.Builder
	b.WriteString("Applications Memory Usage (in Kilobytes):\n")
	fmt.Fprintf(&b, "Uptime: %d Realtime: %d\n\nTotal PSS by process:\n", uptime, realtime)
	for _, p := range procs {
		fmt.Fprintf(&b, "    %sK: %s (pid %d%s)\n", commaK(p.Pss), p.Name, p.Pid, p.Comment)
	}
	io.WriteString(w, b.String())
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
