package history

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	resultpkg "github.com/perfgate/perfgate/result"
)

// AddFiles adds each run once, skips a session that did not reach Stop,
// and says what it did with every file; CheckFiles refuses a folder with a
// Result the history cannot keep before anything is added.
func TestAddFiles(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		ctx := context.Background()
		dir := t.TempDir()
		for i := range 3 {
			r := result("TestFeed", "Pixel 7", t0.Add(time.Duration(i)*time.Hour), scrollStep("scroll", 18, 5))
			if i == 1 {
				r.Unfinished, r.Error = &resultpkg.Unfinished{After: "launch"}, "killed"
			}
			if err := r.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.json", i))); err != nil {
				t.Fatal(err)
			}
		}
		var seen []string
		o := AddOptions{Meta: Meta{Commit: "abc"}, ReportBase: "https://ci.example/r/", Added: func(a AddedFile) {
			switch {
			case a.Run == nil:
				seen = append(seen, "skipped "+filepath.Base(a.Path)+": "+a.Skipped)
			case a.Run.ReportURL != "https://ci.example/r/"+strings.TrimSuffix(filepath.Base(a.Path), ".json")+".html":
				t.Errorf("report URL %q", a.Run.ReportURL)
			default:
				seen = append(seen, fmt.Sprintf("%s %v", filepath.Base(a.Path), a.New))
			}
		}}
		files, err := CheckFiles([]string{dir}, o)
		if err != nil || len(files) != 3 {
			t.Fatalf("CheckFiles: %q, %v", files, err)
		}
		s := k.open(t, "h")
		for _, want := range [][]string{{"skipped r1.json: killed", "r0.json true", "r2.json true"}, {"skipped r1.json: killed", "r0.json false", "r2.json false"}} {
			seen = nil
			if n, err := s.AddFiles(ctx, files, o); err != nil || n != strings.Count(strings.Join(want, ","), "true") || !slices.Equal(seen, want) {
				t.Errorf("AddFiles: %d, %v, %q; want %q", n, err, seen, want)
			}
		}
		if err := result("TestFeed", "Pixel 7", time.Time{}).WriteFile(filepath.Join(dir, "r3.json")); err != nil {
			t.Fatal(err)
		}
		if _, err := CheckFiles([]string{dir}, o); err == nil || !strings.Contains(err.Error(), "r3.json") {
			t.Errorf("a Result without a start time: %v", err)
		}
	})
}

// A time is RFC 3339, a date, or a duration back from now.
func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01T09:30:00Z": time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC),
		"48h":                  now.Add(-48 * time.Hour),
	} {
		if got, err := ParseTime(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1h", "yesterday", strings.Repeat("x", 200)} {
		if _, err := ParseTime(in, now); err == nil || len(err.Error()) > 200 {
			t.Errorf("ParseTime(%.20q): %v", in, err)
		}
	}
}
