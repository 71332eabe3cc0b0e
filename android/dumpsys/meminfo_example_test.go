package dumpsys_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/dumpsys"
)

func ExampleParseMeminfo() {
	out := []byte(`Applications Memory Usage (in Kilobytes):
** MEMINFO in pid 3794 [com.example.app] **
                   Pss  Private  Private     Swap      Rss     Heap     Heap     Heap
                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free
                ------   ------   ------   ------   ------   ------   ------   ------
  Native Heap    41200    41100        0        0    45000    80000    60000    20000
        TOTAL   210000   150000    40000        0   300000   110000    75000    35000

 App Summary
                       Pss(KB)                        Rss(KB)
                        ------                         ------
           Java Heap:    30000                          52000
         Native Heap:    41100                          45000

           TOTAL PSS:   210000            TOTAL RSS:   300000      TOTAL SWAP (KB):        0
`)
	m, err := dumpsys.ParseMeminfo(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s pid %d: PSS %d KiB, RSS %d KiB, Java heap %d KiB\n", m.Process, m.PID, m.PSSKB, m.RSSKB, m.Summary.JavaHeapKB)

	_, err = dumpsys.ParseMeminfo([]byte("No process found for: com.example.app\n"))
	fmt.Println(err)
	// Output:
	// com.example.app pid 3794: PSS 210000 KiB, RSS 300000 KiB, Java heap 30000 KiB
	// dumpsys meminfo: no process found for "com.example.app"
}

func ExampleMemorySummarize() {
	// Times 0, 0.5, 1, 1.5 min: slope = Σdt·dKB / Σdt² = 1450 / 1.25 = 1160 KiB/min.
	pss := []dumpsys.MemorySample{
		{At: 0, KB: 100_000},
		{At: 30e9, KB: 100_600}, // 30 s
		{At: 60e9, KB: 101_000},
		{At: 90e9, KB: 101_800},
	}
	s, err := dumpsys.MemorySummarize(pss)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("max %d KiB, last %d KiB, mean %.0f KiB, growth %.0f KiB/min\n", s.MaxKB, s.LastKB, s.MeanKB, s.GrowthKBPerMin)
	// Output: max 101800 KiB, last 101800 KiB, mean 100850 KiB, growth 1160 KiB/min
}
