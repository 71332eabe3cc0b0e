package history

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/metrics"
	resultpkg "github.com/perfgate/perfgate/result"
)

// A stored run reads back as it went in: values are the medians of their
// step's iterations, series run oldest first, a run that did not measure a
// metric has no point (never a zero), and filters narrow by branch, time
// and device.
func TestStoreRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		ctx := context.Background()
		s := k.open(t, "h")
		// Added out of order: the series must still be in time order.
		for _, i := range []int{2, 0, 1, 3} {
			steps := []*resultpkg.Step{scrollStep("scroll", 16+float64(i), 5), scrollStep("scroll#2", 30+float64(i), 5), scrollStep("scroll#3", 17+float64(i), 5)}
			if i == 1 {
				steps[0].FrameStats.Frames, steps[1].FrameStats.Frames, steps[2].FrameStats.Frames = 0, 0, 0 // no frames measured
			}
			branch := "main"
			if i == 3 {
				branch = "feature"
			}
			run := RunOf(result("TestFeed", "Pixel 7", t0.Add(time.Duration(i)*time.Hour), steps...), Meta{Commit: commitOf(i), Branch: branch, AppVersion: "1.4." + string(rune('0'+i))})
			if added, err := s.Add(ctx, run); err != nil || !added {
				t.Fatalf("add %d: added %v, %v", i, added, err)
			}
		}
		series, err := s.Series(ctx, Filter{Test: "TestFeed", Step: "scroll", Metric: "frame_time_p95"})
		if err != nil {
			t.Fatal(err)
		}
		if len(series) != 1 {
			t.Fatalf("got %d series, want 1: %+v", len(series), series)
		}
		sr := series[0]
		if sr.Unit != "ms" || sr.Better != metrics.Lower || sr.Device != "Pixel 7" {
			t.Errorf("series facts: %+v", sr.Key)
		}
		// Median (nearest rank) of 16+i, 30+i, 17+i is 17+i; run 1 measured no frames.
		want := []struct {
			commit string
			v      float64
		}{{"c00000", 17}, {"c00002", 19}, {"c00003", 20}}
		if len(sr.Points) != len(want) {
			t.Fatalf("got %d points, want %d: %+v", len(sr.Points), len(want), sr.Points)
		}
		for i, w := range want {
			p := sr.Points[i]
			if p.Commit != w.commit || p.Value != w.v || p.Iterations != 3 {
				t.Errorf("point %d: %s %v (%d iterations), want %s %v (3)", i, p.Commit, p.Value, p.Iterations, w.commit, w.v)
			}
		}
		cpu, err := s.Series(ctx, Filter{Metric: "cpu", Branches: []string{"main"}, Since: t0.Add(30 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if len(cpu) != 1 || len(cpu[0].Points) != 2 || cpu[0].Points[0].Commit != "c00001" || cpu[0].Points[1].Commit != "c00002" {
			t.Errorf("cpu on main since 9:30: %+v", cpu)
		}
		if other, err := s.Series(ctx, Filter{Device: "Pixel 8"}); err != nil || len(other) != 0 {
			t.Errorf("another device: %v, %v", other, err)
		}
		keys, err := s.Keys(ctx, Filter{Step: "scroll"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, k := range keys {
			found = found || k == Key{"TestFeed", "scroll", "frame_time_p95", "Pixel 7"}
			if k.Step != "scroll" {
				t.Errorf("key of another step: %v", k)
			}
		}
		if !found {
			t.Errorf("keys lack scroll frame_time_p95: %v", keys)
		}
	})
}

// A run is added once: its ID decides, and adding it again changes
// nothing.
func TestStoreAddsOnce(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		ctx := context.Background()
		s := k.open(t, "h")
		r := result("TestFeed", "Pixel 7", t0, scrollStep("scroll", 18, 5))
		first := RunOf(r, Meta{Commit: "abc"})
		if added, err := s.Add(ctx, first); err != nil || !added {
			t.Fatalf("first add: %v %v", added, err)
		}
		again := RunOf(r, Meta{Commit: "other"})
		again.Values[0].Value = 99
		if added, err := s.Add(ctx, again); err != nil || added {
			t.Fatalf("second add of %s: added %v, %v", again.ID, added, err)
		}
		if n, err := s.Count(ctx); err != nil || n != 1 {
			t.Fatalf("count %d, %v", n, err)
		}
		sr, _ := s.Series(ctx, Filter{Metric: first.Values[0].Metric})
		if len(sr) != 1 || len(sr[0].Points) != 1 || sr[0].Points[0].Value != first.Values[0].Value || sr[0].Points[0].Commit != "abc" {
			t.Errorf("after the second add: %+v", sr)
		}
		// Another start time is another run.
		r.Start = r.Start.Add(time.Second)
		if added, err := s.Add(ctx, RunOf(r, Meta{})); err != nil || !added {
			t.Fatalf("a later run: %v %v", added, err)
		}
	})
}

// Ten writers at once, each with its own connection to one history, some
// adding the same runs: nothing is lost and nothing doubles.
func TestStoreConcurrentWriters(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		ctx := context.Background()
		k.open(t, "h") // created and migrated; each writer opens it anew
		const writers, each = 10, 15
		var wg sync.WaitGroup
		errs := make(chan error, writers*(each+1))
		for w := range writers {
			s := k.open(t, "h")
			wg.Go(func() {
				for i := range each {
					r := result("TestFeed", "Pixel 7", t0.Add(time.Duration(w*each+i)*time.Minute), scrollStep("scroll", 18, 5), scrollStep("fling", 20, 6))
					if added, err := s.Add(ctx, RunOf(r, Meta{Commit: commitOf(w*each + i)})); err != nil || !added {
						errs <- errors.Join(err, errors.New("not added"))
					}
				}
				// Every writer also adds the same run; one of them stores it.
				if _, err := s.Add(ctx, RunOf(result("TestShared", "Pixel 7", t0, scrollStep("scroll", 18, 5)), Meta{})); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		s := k.open(t, "h")
		if n, err := s.Count(ctx); err != nil || n != writers*each+1 {
			t.Fatalf("%d runs stored, want %d (%v)", n, writers*each+1, err)
		}
		sr, err := s.Series(ctx, Filter{Test: "TestFeed", Step: "fling", Metric: "frame_time_p95"})
		if err != nil || len(sr) != 1 || len(sr[0].Points) != writers*each {
			t.Fatalf("fling series: %d series, %v", len(sr), err)
		}
		for i, p := range sr[0].Points {
			if p.Commit != commitOf(i) {
				t.Fatalf("point %d is %s, want %s", i, p.Commit, commitOf(i))
			}
		}
	})
}

// The schema is versioned: a new history is migrated once even when many
// processes open it at the same moment, and a history written by a newer
// perfgate is refused rather than misread.
func TestStoreMigrations(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		ctx := context.Background()
		dsn := k.dsn(t, "fresh")
		var wg sync.WaitGroup
		stores := make([]*Store, 8)
		errs := make([]error, len(stores))
		for i := range stores {
			wg.Go(func() { stores[i], errs[i] = Open(ctx, dsn) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			defer stores[i].Close()
		}
		s := stores[0]
		if k.name == "sqlite" {
			var mode string
			if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
				t.Fatalf("journal mode %q (%v), want wal", mode, err)
			}
		}
		var rows, version int
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*), MAX(version) FROM perfgate_schema").Scan(&rows, &version); err != nil {
			t.Fatal(err)
		}
		if rows != SchemaVersion || version != SchemaVersion {
			t.Fatalf("schema table: %d rows, version %d; want %d", rows, version, SchemaVersion)
		}
		if _, err := s.db.ExecContext(ctx, s.bind("INSERT INTO perfgate_schema (version, applied) VALUES (?, ?)"), SchemaVersion+1, "later"); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, dsn)
		if !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("open a newer history: %v, want ErrNewerSchema", err)
		}
	})
}

// A value that cannot be real never enters the history.
func TestStoreRefusesNonFinite(t *testing.T) {
	s := storeKind{dsn: func(t *testing.T, name string) string { return t.TempDir() + "/h.db" }}.open(t, "h")
	run := RunOf(result("TestFeed", "Pixel 7", t0, scrollStep("scroll", 18, 5)), Meta{})
	run.Values[1].Value = math.NaN()
	_, err := s.Add(context.Background(), run)
	if err == nil || !contains(err.Error(), run.ID, "scroll", run.Values[1].Metric, "not a measurement") {
		t.Fatalf("NaN value: %v", err)
	}
	if n, _ := s.Count(context.Background()); n != 0 {
		t.Errorf("%d runs stored after a refused add", n)
	}
}
