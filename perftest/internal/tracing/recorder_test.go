package tracing

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The config asks for exactly what the analysis reads; what a user passes
// in it has been checked, so it cannot break out of its quotes.
func TestPerfettoConfig(t *testing.T) {
	cfg := Config{Package: "com.example", Categories: []string{"gfx", "view"}, MaxDuration: 90 * time.Second, BufferKB: 4096}
	got := perfettoConfig(cfg, []string{"linux.ftrace", "linux.process_stats", "android.surfaceflinger.frametimeline"})
	for _, want := range []string{
		"duration_ms: 90000 buffers { size_kb: 4096 fill_policy: RING_BUFFER }",
		`ftrace_events: "sched/sched_switch" ftrace_events: "sched/sched_waking"`,
		`atrace_categories: "gfx" atrace_categories: "view" atrace_apps: "com.example" compact_sched { enabled: true }`,
		`name: "linux.process_stats" process_stats_config { scan_all_processes_on_start: true }`,
		`data_sources { config { name: "android.surfaceflinger.frametimeline" } }`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("config lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "'\n") {
		t.Errorf("config holds a quote or a newline:\n%s", got)
	}
}

// perfetto --query as perfetto_cmd prints it (the layout of its source,
// with and without a machine column), and the older one-line layout.
func TestParsePerfettoQuery(t *testing.T) {
	current := `
Not meant for machine consumption. Use --query-raw for scripts.

Service: Perfetto v43.0
Tracing sessions: 0 (started: 0)


PRODUCER PROCESSES CONNECTED:

ID     PID      UID      FLAGS  NAME                                       SDK
==     ===      ===      =====  ====                                       ===
1      598      9999            perfetto:traced_probes                     
2      612      1000            android.surfaceflinger.frametimeline       


DATA SOURCES REGISTERED:

NAME                                     PRODUCER                     DETAILS
===                                      ========                     ========
linux.ftrace                             perfetto:traced_probes (1)   
linux.process_stats                      perfetto:traced_probes (1)   
android.surfaceflinger.frametimeline     android.surfaceflinger.frametimeline (2) 
track_event                              com.example (5)              cat1,cat2
`
	older := "Service: Perfetto v11.0\r\nDATA SOURCES REGISTERED:\r\nlinux.ftrace           perfetto:traced_probes (id=1)\r\nlinux.process_stats    perfetto:traced_probes (id=1)\r\n"
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{current, []string{"linux.ftrace", "linux.process_stats", "android.surfaceflinger.frametimeline", "track_event"}},
		{older, []string{"linux.ftrace", "linux.process_stats"}},
		{"perfetto: unrecognized option '--query'\n", nil},
	} {
		if got := parsePerfettoQuery([]byte(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func FuzzParsePerfettoQuery(f *testing.F) {
	f.Add([]byte("DATA SOURCES REGISTERED:\nNAME PRODUCER\n=== ===\nlinux.ftrace p (1)\n\nOTHER:\nx\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range parsePerfettoQuery(b) {
			if s == "" || strings.ContainsAny(s, " \t\n") {
				t.Fatalf("data source %q", s)
			}
		}
	})
}
