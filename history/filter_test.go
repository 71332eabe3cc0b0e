package history_test

import (
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/history"
)

func TestFilterOf(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f, err := history.FilterOf("TestFeed", "scroll", "jank", "Pixel 7", " main, ,release ", "24h", now)
	if err != nil {
		t.Fatal(err)
	}
	if f.Test != "TestFeed" || f.Step != "scroll" || f.Metric != "jank" || f.Device != "Pixel 7" ||
		!slices.Equal(f.Branches, []string{"main", "release"}) || !f.Since.Equal(now.Add(-24*time.Hour)) {
		t.Errorf("FilterOf = %+v", f)
	}
	if f, err := history.FilterOf("", "", "", "", "", "", now); err != nil || f.Branches != nil || !f.Since.IsZero() {
		t.Errorf("no filters: %+v, %v", f, err)
	}
	if _, err := history.FilterOf("", "", "", "", "", "yesterday", now); err == nil {
		t.Error("from yesterday: no error")
	}
}
