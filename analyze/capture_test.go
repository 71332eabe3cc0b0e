package analyze

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestAnalyzeMeminfo(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	tests := []struct {
		file    string
		process string
		pid     int
		pss     int64
		rss     *int64
		swap    *int64
		swapPSS bool
		summary *MeminfoSummary
	}{
		// Values read by hand from the captures' TOTAL rows and App Summary blocks.
		{"meminfo/frameprobe_samsung_s23_api34.txt", "com.example.game", 18345, 3229008, i64(1683588), i64(1601537), true,
			&MeminfoSummary{9584, 449876, 85008, 2400, 449124, 627096, 1605920, 3229008}},
		{"meminfo/yuvaupdate_modern_swappss_utf16le_a.txt", "com.nareshkumarbalamurugan.YuvaUpdate", 25723, 237980, i64(347552), i64(60454), true,
			&MeminfoSummary{13752, 89308, 18264, 2100, 428, 43260, 70868, 237980}},
		{"meminfo/droidmonitor_api23_android60.txt", "com.sample.package", 22861, 145991, nil, i64(22236), false,
			&MeminfoSummary{17976, 24240, 33748, 1316, 40829, 17932, 9950, 145991}},
		{"meminfo/droidmonitor_api18_android43.txt", "com.sample.package", 29607, 28929, nil, nil, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := fixtures.Path(t, tc.file)
			m, err := ReadMeminfo(path)
			if err != nil {
				t.Fatal(err)
			}
			// What the command prints is what it reads back: one JSON
			// object of these fields and no other.
			var out bytes.Buffer
			if err := m.WriteJSON(&out); err != nil {
				t.Fatal(err)
			}
			var got Meminfo
			dec := json.NewDecoder(&out)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("output is not one JSON object: %v", err)
			}
			if got.Source != "dumpsys meminfo" || got.File != path || got.Process != tc.process || got.PID != tc.pid || got.PSSKB != tc.pss || got.SwapPSS != tc.swapPSS {
				t.Errorf("got %+v", got)
			}
			eq := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
			if !eq(got.RSSKB, tc.rss) || !eq(got.SwapKB, tc.swap) {
				t.Errorf("rss %v swap %v, want %v %v", got.RSSKB, got.SwapKB, tc.rss, tc.swap)
			}
			if (got.Summary == nil) != (tc.summary == nil) || (got.Summary != nil && *got.Summary != *tc.summary) {
				t.Errorf("summary = %+v, want %+v", got.Summary, tc.summary)
			}
		})
	}
}
