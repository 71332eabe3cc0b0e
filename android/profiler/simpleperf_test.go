package profiler

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseSimpleperfSamplesPerfScriptCapture(t *testing.T) {
	// report_sample.py's text of a Maps recording on Android 11+: one
	// sample (the excerpt stops inside it) of the main thread.
	r, err := ParseSimpleperfSamples(fixtures.Read(t, "simpleperf/pprofutils3_report_sample_py_perf_script_maps_excerpt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Samples) != 1 {
		t.Fatalf("%d samples, want 1", len(r.Samples))
	}
	s := r.Samples[0]
	if s.Thread != "com.google.android.apps.maps" || s.PID != 23281 || s.TID != 23281 || s.TimeNs != 520295_965190000 || s.Period != 244011 || s.Event != "cpu-clock" {
		t.Errorf("header %+v", s)
	}
	if len(s.Frames) != 8 {
		t.Fatalf("%d frames, want 8: %+v", len(s.Frames), s.Frames)
	}
	odex := "/data/app/~~9YPINW14y2izqCbN0YZR6A==/com.google.android.apps.maps-WZHISLiw8lkQTFvs8_mhPw==/oat/arm64/base.odex"
	if f := s.Frames[2]; f.Symbol != "java.lang.Object apnz.p()" || f.File != odex {
		t.Errorf("frame 2 = %+v", f)
	}
	if f := s.Frames[7]; f.Symbol != "android.app.Instrumentation.callApplicationOnCreate" || f.File != "/system/framework/arm64/boot-framework.oat" {
		t.Errorf("frame 7 = %+v", f)
	}
	// Obfuscated classes are the app's by where their code lives.
	if i := AppFrame(s.Frames, "com.google.android.apps.maps"); i != 0 {
		t.Errorf("AppFrame = %d, want 0", i)
	}
	want := "android.app.Instrumentation.callApplicationOnCreate;ero.onCreate;ern.c;dbk.c;ere.h;apnz.p;erb.<init>;erb.kz"
	if got := FoldStack(s.Frames); got != want {
		t.Errorf("FoldStack =\n %s\nwant\n %s", got, want)
	}
}

func TestParseSimpleperfSamplesReportTables(t *testing.T) {
	// `simpleperf report` adds samples up: there is no time to place them.
	for _, name := range []string{
		"simpleperf/androidriscv64_160_report_stdio_riscv64_top_excerpt.txt",
		"simpleperf/blog2025_report_ls_instructions_author_elided.txt",
		"simpleperf/lkml2020_pixel3a_bonito_report_g_full_callgraph_email_wrapped.txt",
	} {
		_, err := ParseSimpleperfSamples(fixtures.Read(t, name))
		var pe *devtext.ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "report table") {
			t.Errorf("%s: %v, want a ParseError naming a report table", name, err)
		}
	}
}

func TestParseSimpleperfRecordLog(t *testing.T) {
	rec, lost, ok := ParseSimpleperfRecordLog(fixtures.Read(t, "simpleperf/blog2025_record_stderr_post_processing.txt"))
	if !ok || rec != 44 || lost != 0 {
		t.Errorf("ParseSimpleperfRecordLog = %d, %d, %v; want 44, 0, true", rec, lost, ok)
	}
	rec, lost, ok = ParseSimpleperfRecordLog([]byte("simpleperf I cmd_record.cpp:735] Samples recorded: 1204 (cut 12). Samples lost: 3.\n"))
	if !ok || rec != 1204 || lost != 3 {
		t.Errorf("with cut stacks: %d, %d, %v", rec, lost, ok)
	}
	if _, _, ok := ParseSimpleperfRecordLog([]byte("simpleperf E environment.cpp:681] Package a.b doesn't exist or isn't debuggable/profileable.\n")); ok {
		t.Error("an error line read as counts")
	}
}

// reportSample is `simpleperf report-sample --show-callchain` as
// cmd_report_sample.cpp prints it (PrintMetaInfo, PrintSample,
// PrintLostSituation: two spaces per level), here with one sample cut to
// the frames that matter and one printed without vaddr lines (a filtered
// copy) and with execution types.
const reportSample = `meta_info:
  trace_offcpu: false
  event_type: cpu-clock
  app_package_name: com.example.feed
  app_type: debuggable
sample:
  event_type: cpu-clock
  time: 7254381000123
  event_count: 1000000
  thread_id: 5123
  thread_name: example.feed
  vaddr_in_file: 2a1f0
  file: /data/app/~~abc==/com.example.feed-def==/oat/arm64/base.odex
  symbol: void com.example.feed.FeedAdapter.onBindViewHolder(androidx.recyclerview.widget.RecyclerView$ViewHolder, int)
  callchain:
    vaddr_in_file: 4c0
    file: /system/framework/arm64/boot-framework.oat
    symbol: android.view.Choreographer.doFrame
    vaddr_in_file: 8f4
    file: /apex/com.android.runtime/lib64/bionic/libc.so
    symbol: __libc_init
sample:
  event_type: cpu-clock
  time: 7254382000123
  event_count: 1000000
  thread_id: 5123
  thread_name: example.feed
  file: [JIT app cache]
  symbol: com.example.feed.ImageCache.decode
  execution_type: jit_jvm_method
  callchain:
    file: /system/framework/arm64/boot-framework.oat
    symbol: android.os.Handler.dispatchMessage
    execution_type: native_method
lost_situation:
  sample_count: 2
  lost_count: 0
`

func TestParseSimpleperfSamplesReportSample(t *testing.T) {
	r, err := ParseSimpleperfSamples([]byte(reportSample))
	if err != nil {
		t.Fatal(err)
	}
	if r.App != "com.example.feed" || !slices.Equal(r.Events, []string{"cpu-clock"}) || r.TraceOffCPU || r.Reported != 2 || r.Lost != 0 {
		t.Errorf("meta %+v", r)
	}
	if len(r.Samples) != 2 {
		t.Fatalf("%d samples", len(r.Samples))
	}
	a, b := r.Samples[0], r.Samples[1]
	if a.TimeNs != 7254381000123 || a.TID != 5123 || a.PID != -1 || a.Thread != "example.feed" || a.Period != 1000000 || len(a.Frames) != 3 {
		t.Errorf("sample 0 %+v", a)
	}
	if got := FoldStack(a.Frames); got != "__libc_init;android.view.Choreographer.doFrame;com.example.feed.FeedAdapter.onBindViewHolder" {
		t.Errorf("fold 0 = %s", got)
	}
	if len(b.Frames) != 2 || b.Frames[0] != (StackFrame{Symbol: "com.example.feed.ImageCache.decode", File: "[JIT app cache]"}) {
		t.Errorf("sample 1 %+v", b)
	}
	if AppFrame(a.Frames, "com.example.feed") != 0 || AppFrame(b.Frames, "com.example.feed") != 0 || AppFrame(b.Frames[1:], "com.example.feed") != -1 {
		t.Error("AppFrame")
	}
	// A sample without its time is not data.
	bad := strings.Replace(reportSample, "  time: 7254382000123\n", "", 1)
	var pe *devtext.ParseError
	if _, err := ParseSimpleperfSamples([]byte(bad)); !errors.As(err, &pe) || pe.Line != 22 {
		t.Errorf("sample without time: %v", err)
	}
	if _, err := ParseSimpleperfSamples([]byte(strings.Replace(reportSample, "time: 7254382000123", "time: -4", 1))); !errors.As(err, &pe) {
		t.Errorf("negative time: %v", err)
	}
	if r, err := ParseSimpleperfSamples(nil); err != nil || len(r.Samples) != 0 {
		t.Errorf("empty: %v %v", r, err)
	}
	if _, err := ParseSimpleperfSamples([]byte("simpleperf E environment.cpp:681] Package a.b doesn't exist or isn't debuggable/profileable.\n")); !errors.As(err, &pe) {
		t.Errorf("an error message parsed: %v", err)
	}
}

func TestStackSymbol(t *testing.T) {
	for in, want := range map[string]string{
		"void com.x.Feed.bind(androidx.recyclerview.widget.RecyclerView$ViewHolder, int)": "com.x.Feed.bind",
		"java.lang.Object apnz.p()": "apnz.p",
		"int[] a.B.c(int[][])":      "a.B.c",
		"erb.<init>":                "erb.<init>",
		"android::Looper::pollOnce(int, int*, int*, void**)":                              "android::Looper::pollOnce",
		"std::__1::basic_string<char, std::__1::char_traits<char> >::append(char const*)": "std::__1::basic_string<char, std::__1::char_traits<char> >::append",
		"[linker]__memcpy_aarch64_simd":                                                   "[linker]__memcpy_aarch64_simd",
		"$x.0":                                                                            "$x.0",
		"(anonymous namespace)::f()":                                                      "(anonymous namespace)::f",
		"()":                                                                              "()",
		"  __epoll_pwait  ":                                                               "__epoll_pwait",
	} {
		if got := StackSymbol(in); got != want {
			t.Errorf("StackSymbol(%q) = %q, want %q", in, got, want)
		}
	}
	if got := FoldStack([]StackFrame{{Symbol: "a;b"}, {Symbol: "void m.N.o()"}}); got != "m.N.o;a:b" {
		t.Errorf("FoldStack = %q", got)
	}
}

func FuzzParseSimpleperfSamples(f *testing.F) {
	f.Add(fixtures.Read(f, "simpleperf/pprofutils3_report_sample_py_perf_script_maps_excerpt.txt"))
	f.Add(fixtures.Read(f, "simpleperf/androidriscv64_160_report_stdio_riscv64_top_excerpt.txt"))
	f.Add([]byte(reportSample))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := ParseSimpleperfSamples(in)
		if err != nil {
			return
		}
		for _, s := range r.Samples {
			if s.TimeNs < 0 || s.TID < 0 || s.Period < 0 {
				t.Fatalf("impossible sample %v", s)
			}
			fold := FoldStack(s.Frames)
			if len(s.Frames) > 0 && strings.Count(fold, ";") < len(s.Frames)-1 {
				t.Fatalf("fold %q of %d frames", fold, len(s.Frames))
			}
			AppFrame(s.Frames, "com.example")
		}
		ParseSimpleperfRecordLog(in)
	})
}
