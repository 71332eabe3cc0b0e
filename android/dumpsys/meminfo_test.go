package dumpsys

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// Expected values below were read by hand from each capture's TOTAL row and
// App Summary block.
func TestParseMeminfoFixtures(t *testing.T) {
	type sum struct {
		java, native, code, stack, gfx, other, system, total int64
		javaRSS, nativeRSS, codeRSS, stackRSS, gfxRSS        int64
		unknownRSS, totalRSS                                 int64
	}
	tests := []struct {
		file          string
		pid           int
		process       string
		pss           int64
		rss           int64 // 0: no RSS
		swap          int64
		hasSwap       bool
		swapIsPSS     bool
		summary       *sum
		rowName       string // a table row to spot-check
		rowCol        string
		rowVal        int64
		rows, columns int
	}{
		{
			file: "meminfo/droidmonitor_api18_android43.txt", pid: 29607, process: "com.sample.package",
			pss: 28929, rowName: "Dalvik", rowCol: "Heap Free", rowVal: 5934, rows: 13, columns: 6,
		},
		{
			file: "meminfo/droidmonitor_api19_android44.txt", pid: 30125, process: "com.sample.package",
			pss: 44563, swap: 0, hasSwap: true, rowName: "Native Heap", rowCol: "Heap Size", rowVal: 8948, rows: 13, columns: 7,
		},
		{
			file: "meminfo/droidmonitor_api23_android60.txt", pid: 22861, process: "com.sample.package",
			pss: 145991, swap: 22236, hasSwap: true, rowName: "GL mtrack", rowCol: "Pss Total", rowVal: 32867, rows: 17, columns: 7,
			summary: &sum{java: 17976, native: 24240, code: 33748, stack: 1316, gfx: 40829, other: 17932, system: 9950, total: 145991},
		},
		{
			file: "meminfo/frameprobe_samsung_s23_api34.txt", pid: 18345, process: "com.example.game",
			pss: 3229008, rss: 1683588, swap: 1601537, hasSwap: true, swapIsPSS: true,
			rowName: "Native Heap", rowCol: "SwapPss Dirty", rowVal: 1253463, rows: 17, columns: 8,
			summary: &sum{java: 9584, native: 449876, code: 85008, stack: 2400, gfx: 449124, other: 627096, system: 1605920, total: 3229008,
				javaRSS: 21136, nativeRSS: 469656, codeRSS: 130888, stackRSS: 2472, gfxRSS: 449124, unknownRSS: 610312, totalRSS: 1683588},
		},
		{
			file: "meminfo/gracker_meminfo_a_d_launcher3_app_summary_excerpt.txt",
			pss:  105529, rss: 187052, swap: 0, hasSwap: true,
			summary: &sum{java: 5604, native: 24380, code: 880, stack: 976, gfx: 61692, other: 2364, system: 9633, total: 105529,
				javaRSS: 26492, nativeRSS: 27072, codeRSS: 65056, stackRSS: 988, gfxRSS: 61692, unknownRSS: 5752, totalRSS: 187052},
		},
		{
			file: "meminfo/gracker_meminfo_a_d_launcher3_table_excerpt.txt",
			pss:  105529, rss: 187052, swap: 0, hasSwap: true,
			rowName: "Gfx dev", rowCol: "Private Dirty", rowVal: 5884, rows: 19, columns: 11,
		},
		{
			file: "meminfo/maku77_sony_android41_42_com_android_phone.txt", pid: 1066, process: "com.android.phone",
			pss: 7958, rowName: "Unknown", rowCol: "Private Dirty", rowVal: 1056, rows: 13, columns: 6,
		},
		{
			file: "meminfo/mixelmeza_flutter_modern_pss_rss.txt", pid: 3794, process: "com.example.app_movil",
			pss: 353574, rss: 508256, swap: 0, hasSwap: true,
			rowName: "Unknown", rowCol: "Rss Total", rowVal: 137980, rows: 16, columns: 8,
			summary: &sum{java: 34292, native: 57464, code: 37436, stack: 1632, gfx: 0, other: 203408, system: 19342, total: 353574,
				javaRSS: 65072, nativeRSS: 61152, codeRSS: 165372, stackRSS: 1636, gfxRSS: 0, unknownRSS: 215024, totalRSS: 508256},
		},
		{
			file: "meminfo/yuvaupdate_modern_swappss_utf16le_a.txt", pid: 25723, process: "com.nareshkumarbalamurugan.YuvaUpdate",
			pss: 237980, rss: 347552, swap: 60454, hasSwap: true, swapIsPSS: true,
			rowName: "Unknown", rowCol: "SwapPss Dirty", rowVal: 33363, rows: 17, columns: 8,
			summary: &sum{java: 13752, native: 89308, code: 18264, stack: 2100, gfx: 428, other: 43260, system: 70868, total: 237980,
				javaRSS: 29256, nativeRSS: 90940, codeRSS: 172716, stackRSS: 2108, gfxRSS: 428, unknownRSS: 52104, totalRSS: 347552},
		},
		{
			file: "meminfo/yuvaupdate_modern_swappss_utf16le_b.txt", pid: 6972, process: "com.nareshkumarbalamurugan.YuvaUpdate",
			pss: 226810, rss: 392776, swap: 330, hasSwap: true, swapIsPSS: true,
			rowName: ".apk mmap", rowCol: "Private Clean", rowVal: 37252, rows: 17, columns: 8,
			summary: &sum{java: 31216, native: 68820, code: 42856, stack: 1932, gfx: 4916, other: 59096, system: 17974, total: 226810,
				javaRSS: 46564, nativeRSS: 70492, codeRSS: 194880, stackRSS: 1940, gfxRSS: 4916, unknownRSS: 73984, totalRSS: 392776},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m, err := ParseMeminfo(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if m.PID != tc.pid || m.Process != tc.process {
				t.Errorf("pid, process = %d, %q; want %d, %q", m.PID, m.Process, tc.pid, tc.process)
			}
			if m.PSSKB != tc.pss {
				t.Errorf("PSS = %d, want %d", m.PSSKB, tc.pss)
			}
			if m.HasRSS != (tc.rss != 0) || m.RSSKB != tc.rss {
				t.Errorf("RSS = %d (has %v), want %d", m.RSSKB, m.HasRSS, tc.rss)
			}
			if m.SwapKB != tc.swap || m.HasSwap != tc.hasSwap || m.SwapIsPSS != tc.swapIsPSS {
				t.Errorf("swap = %d has=%v pss=%v, want %d has=%v pss=%v", m.SwapKB, m.HasSwap, m.SwapIsPSS, tc.swap, tc.hasSwap, tc.swapIsPSS)
			}
			if len(m.Rows) != tc.rows || len(m.Columns) != tc.columns {
				t.Errorf("%d rows × %d columns %q, want %d × %d", len(m.Rows), len(m.Columns), m.Columns, tc.rows, tc.columns)
			}
			if tc.rowName != "" {
				r, ok := m.Row(tc.rowName)
				v, ok2 := r.Value(m, tc.rowCol)
				if !ok || !ok2 || v != tc.rowVal {
					t.Errorf("row %q column %q = %d (%v %v), want %d", tc.rowName, tc.rowCol, v, ok, ok2, tc.rowVal)
				}
			}
			if tc.summary == nil {
				if m.Summary.Present {
					t.Errorf("App Summary present, want none")
				}
				return
			}
			s := m.Summary
			got := sum{s.JavaHeapKB, s.NativeHeapKB, s.CodeKB, s.StackKB, s.GraphicsKB, s.PrivateOtherKB, s.SystemKB, s.TotalPSSKB,
				s.JavaHeapRSSKB, s.NativeHeapRSSKB, s.CodeRSSKB, s.StackRSSKB, s.GraphicsRSSKB, s.UnknownRSSKB, s.TotalRSSKB}
			if !s.Present || got != *tc.summary {
				t.Errorf("summary = %+v (present %v)\nwant      %+v", got, s.Present, *tc.summary)
			}
		})
	}
}

func TestParseMeminfoColumnNames(t *testing.T) {
	m, err := ParseMeminfo(fixtures.Read(t, "meminfo/gracker_meminfo_a_d_launcher3_table_excerpt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Pss Total", "Pss Clean", "Shared Dirty", "Private Dirty", "Shared Clean", "Private Clean",
		"Swap Dirty", "Rss Total", "Heap Size", "Heap Alloc", "Heap Free"}
	if !reflect.DeepEqual(m.Columns, want) {
		t.Errorf("columns = %q\nwant %q", m.Columns, want)
	}
	m18, err := ParseMeminfo(fixtures.Read(t, "meminfo/droidmonitor_api18_android43.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want18 := []string{"Pss", "Shared Dirty", "Private Dirty", "Heap Size", "Heap Alloc", "Heap Free"}
	if !reflect.DeepEqual(m18.Columns, want18) {
		t.Errorf("API 18 columns = %q, want %q", m18.Columns, want18)
	}
}

func TestParseMeminfoErrors(t *testing.T) {
	t.Run("no process", func(t *testing.T) {
		_, err := ParseMeminfo(fixtures.Read(t, "meminfo/alpicut_no_process_found.txt"))
		var np *MeminfoNoProcessError
		if !errors.As(err, &np) || np.Package != "com.alpicut.app" || !errors.Is(err, ErrMeminfoNoProcess) {
			t.Fatalf("err = %v, want MeminfoNoProcessError for com.alpicut.app", err)
		}
	})
	for _, file := range []string{
		"meminfo/gracker_meminfo_a_d_launcher3_header_excerpt.txt",
		"meminfo/perfetto_docs_android11_systemui_header_excerpt.txt",
		"meminfo/maku77_sony_android41_42_total_pss_by_process_excerpt.txt",
	} {
		t.Run(file, func(t *testing.T) {
			_, err := ParseMeminfo(fixtures.Read(t, file))
			var pe *devtext.ParseError
			if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "TOTAL") {
				t.Fatalf("err = %v, want a ParseError about the missing TOTAL", err)
			}
		})
	}
	for name, in := range map[string]string{
		"empty":         "",
		"bad pid":       "** MEMINFO in pid x [a] **\n",
		"too many cols": "   Pss\n Total\n------\n  TOTAL 1 2\n",
		"bad summary":   " App Summary\n   Pss(KB)\n   ------\n   Java Heap: x\n TOTAL: 1\n",
		"bad total":     " App Summary\n   Pss(KB)\n   ------\n   TOTAL: many\n",
	} {
		t.Run(name, func(t *testing.T) {
			var pe *devtext.ParseError
			if _, err := ParseMeminfo([]byte(in)); !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
		})
	}
}

func TestParseMeminfoAllTwoProcesses(t *testing.T) {
	a := fixtures.Read(t, "meminfo/droidmonitor_api19_android44.txt")
	b := fixtures.Read(t, "meminfo/droidmonitor_api23_android60.txt")
	all, err := ParseMeminfoAll(append(append(append([]byte{}, a...), '\n'), b...))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].PID != 30125 || all[0].PSSKB != 44563 || all[1].PID != 22861 || all[1].PSSKB != 145991 {
		t.Fatalf("got %d blocks: %+v", len(all), all)
	}
}

func TestParseMeminfoTotalPSSByProcess(t *testing.T) {
	got, err := ParseMeminfoTotalPSSByProcess(fixtures.Read(t, "meminfo/maku77_sony_android41_42_total_pss_by_process_excerpt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []MeminfoProcessPSS{
		{96302, "system", 728}, {44547, "com.android.systemui", 965}, {32601, "com.sonyericsson.android.pobox.imecore", 1042},
		{29610, "com.android.settings", 8006}, {26500, "com.sonyericsson.home", 1321}, {23027, "com.facebook.katana", 7371},
		{17963, "com.facebook.katana:dash", 7641}, {13579, "com.google.android.gms", 5171},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// Android 8+ prints thousands separators and "K:".
	got, err = ParseMeminfoTotalPSSByProcess([]byte("Total PSS by process:\n    227,062K: system (pid 1534)\n    120,931K: com.android.systemui (pid 2199 / activities)\n\nTotal PSS by OOM adjustment:\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []MeminfoProcessPSS{{227062, "system", 1534}, {120931, "com.android.systemui", 2199}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseProcMeminfo(t *testing.T) {
	in := "MemTotal:        3844960 kB\nMemFree:          110532 kB\nMemAvailable:    1391648 kB\nBuffers:            5204 kB\nCached:          1375000 kB\nSwapTotal:       2621436 kB\nSwapFree:        1318676 kB\nHugePages_Total:       0\n"
	pm, err := procfs.ParseMeminfo([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if pm.MemTotalKB != 3844960 || pm.MemFreeKB != 110532 || pm.MemAvailableKB != 1391648 || pm.BuffersKB != 5204 ||
		pm.CachedKB != 1375000 || pm.SwapTotalKB != 2621436 || pm.SwapFreeKB != 1318676 || pm.Fields["HugePages_Total"] != 0 || len(pm.Fields) != 8 {
		t.Errorf("got %+v", pm)
	}
	for _, bad := range []string{"", "MemFree: 1 kB\n", "MemTotal 1 kB\n", "MemTotal: x kB\n", "MemTotal: 1 MB\n"} {
		var pe *devtext.ParseError
		if _, err := procfs.ParseMeminfo([]byte(bad)); !errors.As(err, &pe) {
			t.Errorf("%q: err = %v, want *ParseError", bad, err)
		}
	}
}

func FuzzParseMeminfo(f *testing.F) {
	memFuzzAddFixtures(f,
		"meminfo/droidmonitor_api18_android43.txt", "meminfo/droidmonitor_api23_android60.txt",
		"meminfo/frameprobe_samsung_s23_api34.txt", "meminfo/gracker_meminfo_a_d_launcher3_app_summary_excerpt.txt",
		"meminfo/yuvaupdate_modern_swappss_utf16le_a.txt", "meminfo/alpicut_no_process_found.txt",
		"meminfo/maku77_sony_android41_42_total_pss_by_process_excerpt.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		all, err := ParseMeminfoAll(b)
		if err == nil && len(all) == 0 {
			t.Fatal("no blocks and no error")
		}
		_, _ = ParseMeminfoTotalPSSByProcess(b)
		_, _ = procfs.ParseMeminfo(b)
	})
}

func BenchmarkParseMeminfoModern(b *testing.B) {
	in := fixtures.Read(b, "meminfo/frameprobe_samsung_s23_api34.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ParseMeminfo(in); err != nil {
			b.Fatal(err)
		}
	}
}

// memFuzzAddFixtures seeds a fuzz target with captures from the corpus.
// Unlike fixtures.Read it does not skip the target when the corpus is
// absent: the hand-written seeds in testdata/fuzz still run (CI sets
// PERFGATE_REQUIRE_FIXTURES=1 to make a missing corpus fail instead).
func memFuzzAddFixtures(f *testing.F, names ...string) {
	f.Helper()
	if _, err := fixtures.Root(); err != nil {
		if os.Getenv("PERFGATE_REQUIRE_FIXTURES") == "1" {
			fixtures.Dir(f)
		}
		return
	}
	for _, name := range names {
		f.Add(fixtures.Read(f, name))
	}
}
