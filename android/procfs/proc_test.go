package procfs

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// Values read by hand from the captures.
func TestParseProcStatFixtures(t *testing.T) {
	tests := []struct {
		file      string
		cpu       CPUTimes
		cores     int
		lastCore  StatCore
		btime     int64
		ctxt      uint64
		processes uint64
		running   uint64
	}{
		{
			file:  "proc/unidbg_rootfs_8core_2025_proc_stat.txt",
			cpu:   CPUTimes{User: 220763, Nice: 20135, System: 475136, Idle: 128605333, IOWait: 35582, IRQ: 81690, SoftIRQ: 42205},
			cores: 8, lastCore: StatCore{7, CPUTimes{User: 5065, Nice: 686, System: 2131, Idle: 16196431, IOWait: 177, IRQ: 243, SoftIRQ: 197}},
			btime: 1742277321, ctxt: 43099977, processes: 15020, running: 2,
		},
		{
			file:  "proc/goclever_insignia5_api17_proc_stat.txt",
			cpu:   CPUTimes{User: 19107, Nice: 1599, System: 7697, Idle: 432212, IOWait: 4369, IRQ: 1, SoftIRQ: 37},
			cores: 1, lastCore: StatCore{0, CPUTimes{User: 14663, Nice: 1224, System: 5500, Idle: 125495, IOWait: 2403, IRQ: 1, SoftIRQ: 35}},
			btime: 1400167199, ctxt: 1161689, processes: 2907, running: 1,
		},
		{
			file: "proc/androidgodeye_proc_stat_cpu_line.txt",
			cpu:  CPUTimes{User: 4473, Nice: 1068, System: 4565, Idle: 21155, IOWait: 559, SoftIRQ: 29},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			ps, err := ParseStat(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if ps.CPU != tc.cpu {
				t.Errorf("cpu = %+v, want %+v", ps.CPU, tc.cpu)
			}
			if len(ps.Cores) != tc.cores {
				t.Fatalf("%d cores, want %d", len(ps.Cores), tc.cores)
			}
			if tc.cores > 0 && ps.Cores[tc.cores-1] != tc.lastCore {
				t.Errorf("last core = %+v, want %+v", ps.Cores[tc.cores-1], tc.lastCore)
			}
			if ps.BootTime != tc.btime || ps.Ctxt != tc.ctxt || ps.Processes != tc.processes || ps.ProcsRunning != tc.running || ps.ProcsBlocked != 0 {
				t.Errorf("btime %d ctxt %d processes %d running %d blocked %d", ps.BootTime, ps.Ctxt, ps.Processes, ps.ProcsRunning, ps.ProcsBlocked)
			}
		})
	}
}

func TestParseProcStatColumns(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want CPUTimes
		err  bool
	}{
		{name: "4 columns (Linux 2.4)", in: "cpu 1 2 3 4\n", want: CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}},
		{name: "7 columns", in: "cpu 1 2 3 4 5 6 7\n", want: CPUTimes{1, 2, 3, 4, 5, 6, 7, 0, 0, 0}},
		{name: "8 columns", in: "cpu 1 2 3 4 5 6 7 8\n", want: CPUTimes{1, 2, 3, 4, 5, 6, 7, 8, 0, 0}},
		{name: "10 columns", in: "cpu  1 2 3 4 5 6 7 8 9 10\n", want: CPUTimes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{name: "11 columns: extra ignored", in: "cpu 1 2 3 4 5 6 7 8 9 10 11\n", want: CPUTimes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{name: "CRLF", in: "cpu 1 2 3 4\r\ncpu0 1 2 3 4\r\n", want: CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}},
		{name: "3 columns", in: "cpu 1 2 3\n", err: true},
		{name: "negative", in: "cpu 1 2 -3 4\n", err: true},
		{name: "bad core", in: "cpu 1 2 3 4\ncpux 1 2 3 4\n", err: true},
		{name: "bad btime", in: "cpu 1 2 3 4\nbtime soon\n", err: true},
		{name: "no cpu", in: "cpu0 1 2 3 4\n", err: true},
		{name: "empty", in: "", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ParseStat([]byte(tc.in))
			if tc.err {
				var pe *devtext.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %v, want *ParseError", err)
				}
				return
			}
			if err != nil || ps.CPU != tc.want {
				t.Fatalf("got %+v, %v; want %+v", ps.CPU, err, tc.want)
			}
		})
	}
}

func TestParseProcPidStatFixtures(t *testing.T) {
	tests := []struct {
		file string
		want PidStat
	}{
		{"proc/androidgodeye_pid_stat_comm_tail_truncated.txt", PidStat{PID: 3238, Comm: "d.godeye.sample", State: "S", PPID: 1189,
			UTime: 94, STime: 111, Threads: 35, StartTime: 4901, VSize: 1332465664, RSSPages: 16104, Processor: 3}},
		{"proc/unidbg_rootfs_pid_stat_apk_protect.txt", PidStat{PID: 4292, Comm: "com.oacia.apk_protect", State: "S", PPID: 983,
			UTime: 404, STime: 40, Threads: 20, StartTime: 103013784, VSize: 15879843840, RSSPages: 48117, Processor: 5}},
		{"proc/flashlight_task_stat_empty_comm.txt", PidStat{PID: 10180, Comm: "", State: "S", PPID: 901,
			Threads: 130, StartTime: 43243569, VSize: 18565066752, RSSPages: 83083, Processor: 3}},
		{"proc/flashlight_task_stat_parens_in_comm.txt", PidStat{PID: 16360, Comm: "AWCN Worker(M)1", State: "S", PPID: 372,
			Threads: 35, StartTime: 58748, VSize: 16236625920, RSSPages: 43973, Processor: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParsePidStat(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseProcPidStatsTaskDump(t *testing.T) {
	tests := []struct {
		file       string
		n          int
		first      PidStat
		lastTID    int
		lastComm   string
		spaceComms int // threads whose comm holds a space
	}{
		{"proc/flashlight_task_stats_poll1.txt", 42, PidStat{PID: 21455, Comm: "com.example", UTime: 3089, STime: 1079, CSTime: 1}, 23099, "OkHttp Dispatch", 9},
		{"proc/flashlight_task_stats_poll2.txt", 43, PidStat{PID: 21455, Comm: "com.example", UTime: 3106, STime: 1086, CSTime: 1}, 23961, "JITWorker", 9},
		{"proc/flashlight_task_stats_threads.txt", 4, PidStat{PID: 27986, Comm: "OkHttp TaskRunn", UTime: 50, STime: 20, CUTime: 40}, 1234, "com.example", 1},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParsePidStats(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("%d threads, want %d", len(got), tc.n)
			}
			f := got[0]
			if f.PID != tc.first.PID || f.Comm != tc.first.Comm || f.UTime != tc.first.UTime || f.STime != tc.first.STime || f.CUTime != tc.first.CUTime || f.CSTime != tc.first.CSTime {
				t.Errorf("first = %+v, want %+v", f, tc.first)
			}
			if l := got[len(got)-1]; l.PID != tc.lastTID || l.Comm != tc.lastComm {
				t.Errorf("last = %d %q, want %d %q", l.PID, l.Comm, tc.lastTID, tc.lastComm)
			}
			spaces := 0
			for _, s := range got {
				for _, c := range s.Comm {
					if c == ' ' {
						spaces++
						break
					}
				}
			}
			if spaces != tc.spaceComms {
				t.Errorf("%d comms with spaces, want %d", spaces, tc.spaceComms)
			}
		})
	}
}

func TestParseProcPidStatErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "",
		"no parens":   "123 foo S 1 2 3",
		"short":       "123 (foo) S 1 2 3 4 5 6 7 8 9 10 11 12 13",
		"bad pid":     "x (foo) S 1 1 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7",
		"bad utime":   "1 (foo) S 1 1 0 0 -1 0 0 0 0 0 u 2 0 0 20 0 1 0 5 6 7",
		"two lines":   "1 (a) S 1 1 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7\n2 (b) S 1 1 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7",
		"neg utime":   "1 (foo) S 1 1 0 0 -1 0 0 0 0 0 -1 2 0 0 20 0 1 0 5 6 7",
		"close first": "1 )foo( S 1 1 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7",
	} {
		t.Run(name, func(t *testing.T) {
			var pe *devtext.ParseError
			if _, err := ParsePidStat([]byte(in)); !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
		})
	}
	// The minimum: fields through rss (24), no processor.
	st, err := ParsePidStat([]byte("7 (x) R 1 1 0 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 5 6 7"))
	if err != nil || st.UTime != 11 || st.STime != 22 || st.RSSPages != 7 || st.Processor != -1 {
		t.Errorf("minimal line: %+v, %v", st, err)
	}
}

func TestParseProcStatusFixtures(t *testing.T) {
	tests := []struct {
		file string
		want Status
	}{
		{"proc/blog2017_proc_pid_status_chrome.txt", Status{Name: ".android.chrome", State: "S (sleeping)", Tgid: 25910, PID: 25910, PPID: 460,
			UID: 10096, Threads: 49, VmRSSKB: 114316, VmHWMKB: 130672}},
		{"proc/unidbg_rootfs_pid_status_apk_protect.txt", Status{Name: "com.oacia.apk_protect", State: "S (sleeping)", Tgid: 4292, PID: 10396, PPID: 983,
			UID: 10128, Threads: 20, VmRSSKB: 192468, VmHWMKB: 225384, RssAnonKB: 77532, RssFileKB: 112964, RssShmemKB: 1972, VmSwapKB: 1260}},
		{"proc/perfetto_docs_systemui_status_vm_excerpt.txt", Status{VmRSSKB: 195272, VmHWMKB: 256972, RssAnonKB: 30184, RssFileKB: 164420, RssShmemKB: 668, VmSwapKB: 43960}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParseStatus(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for name, in := range map[string]string{
		"empty":     "",
		"bad rss":   "Name:\tx\nVmRSS:\t12 MB\n",
		"bad pid":   "Name:\tx\nPid:\tx\n",
		"bad uid":   "Name:\tx\nUid:\t\n",
		"nothing":   "Foo:\t1\n",
		"bad value": "VmRSS:\tlots kB\n",
	} {
		t.Run(name, func(t *testing.T) {
			var pe *devtext.ParseError
			if _, err := ParseStatus([]byte(in)); !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
		})
	}
}

func FuzzParseProcStat(f *testing.F) {
	memFuzzAddFixtures(f, "proc/unidbg_rootfs_8core_2025_proc_stat.txt", "proc/goclever_insignia5_api17_proc_stat.txt", "proc/androidgodeye_proc_stat_cpu_line.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ParseStat(b)
		if err == nil && ps.CPU.Busy() > ps.CPU.Total() {
			t.Fatalf("busy %d > total %d", ps.CPU.Busy(), ps.CPU.Total())
		}
		_, _ = ParseCPUSnapshot(b)
	})
}

func FuzzParseProcPidStats(f *testing.F) {
	memFuzzAddFixtures(f,
		"proc/flashlight_task_stats_threads.txt", "proc/flashlight_task_stat_empty_comm.txt",
		"proc/flashlight_task_stat_parens_in_comm.txt", "proc/androidgodeye_pid_stat_comm_tail_truncated.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		all, err := ParsePidStats(b)
		if err != nil {
			return
		}
		for _, s := range all {
			if s.Processor < -1 && s.Processor != int(int32(s.Processor)) {
				t.Fatalf("odd processor %d", s.Processor)
			}
		}
		_, _ = ParsePidStat(b)
	})
}

func FuzzParseProcStatus(f *testing.F) {
	memFuzzAddFixtures(f,
		"proc/blog2017_proc_pid_status_chrome.txt", "proc/unidbg_rootfs_pid_status_apk_protect.txt",
		"proc/perfetto_docs_systemui_status_vm_excerpt.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseStatus(b)
	})
}

func BenchmarkParseProcStat(b *testing.B) {
	in := fixtures.Read(b, "proc/unidbg_rootfs_8core_2025_proc_stat.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ParseStat(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseProcPidStatsTaskDump(b *testing.B) {
	in := fixtures.Read(b, "proc/flashlight_task_stats_poll2.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ParsePidStats(in); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseProcStatOverflow(t *testing.T) {
	var pe *devtext.ParseError
	if _, err := ParseStat([]byte("cpu 18446744073709551615 1 0 0\n")); !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *ParseError for a wrapping sum", err)
	}
}

// procUTF16CRLF re-encodes text the way Windows PowerShell saves
// `adb shell ... > file`: UTF-16LE with a byte-order mark and CRLF.
func procUTF16CRLF(b []byte) []byte {
	s := strings.ReplaceAll(string(b), "\n", "\r\n")
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}
