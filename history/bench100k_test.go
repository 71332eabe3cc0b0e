package history

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/memwatch"
	"github.com/perfgate/perfgate/metrics"
)

// BenchmarkHistory100k reads a history of 100,000 runs (one test on one
// device, two steps of ten metrics: 2,000,000 values) as perfgate history
// trend and history html do: every series with its change points, and the
// trend pages. It reports the heap's peak (peak-heap-MB) and, for the
// pages, the largest (page-MB). The history is built once, from a fixed
// seed, in one transaction.
func BenchmarkHistory100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "h.db")
	buildHistory(b, path, 100_000)
	ctx := context.Background()
	s, err := OpenExisting(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	trends := func(b *testing.B) []Trend {
		tr, err := s.Trends(ctx, Filter{}, TrendOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(tr) != 20 || tr[0].Len() != 100_000 || len(tr[0].Points) != DefaultLast {
			b.Fatalf("%d series", len(tr))
		}
		return tr
	}
	b.Run("op=trend", func(b *testing.B) {
		var peak uint64
		for b.Loop() {
			runtime.GC()
			stop := memwatch.Objects(0)
			trends(b)
			peak = max(peak, stop())
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	})
	b.Run("op=html", func(b *testing.B) {
		var peak, page uint64
		dir := b.TempDir()
		for b.Loop() {
			runtime.GC()
			stop := memwatch.Objects(0)
			if err := WritePages(dir, trends(b), PageOptions{}); err != nil {
				b.Fatal(err)
			}
			peak = max(peak, stop())
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				page = max(page, uint64(fi.Size()))
			}
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(page)/(1<<20), "page-MB")
	})
}

// bigMetrics are the metrics of each step of the big histories.
var bigMetrics = []struct {
	name   string
	unit   string
	better metrics.Better
	level  float64
}{
	{"frame_time_p50", "ms", metrics.Lower, 8}, {"frame_time_p90", "ms", metrics.Lower, 12},
	{"frame_time_p95", "ms", metrics.Lower, 16}, {"frame_time_p99", "ms", metrics.Lower, 24},
	{"fps", "fps", metrics.Higher, 58}, {"jank", "frames", metrics.Lower, 40},
	{"cpu", "%", metrics.Lower, 30}, {"cpu_max", "%", metrics.Lower, 60},
	{"pss_max", "KiB", metrics.Lower, 150000}, {"rss_max", "KiB", metrics.Lower, 220000},
}

var bigSteps = []string{"launch", "scroll"}

// buildHistory writes a history of n runs into the SQLite file path from a
// fixed seed, in one transaction: one test on one device model, a run a
// minute, two steps of ten metrics each. Each series is a level with
// uniform noise of ±5 % that moves by 5–20 % at a few runs. The runs go in
// through AddRuns; their values are made inside SQLite, which takes a
// fifth of the time of adding them one by one.
func buildHistory(tb testing.TB, path string, n int) {
	tb.Helper()
	ctx := context.Background()
	s, err := Open(ctx, "file:"+path+"?_pragma=cache_size(-262144)")
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(31, 10))
	type segment struct {
		k, lo, hi int
		level     float64
	}
	var levels []segment
	nk := len(bigSteps) * len(bigMetrics)
	for k := range nk {
		l, lo := bigMetrics[k%len(bigMetrics)].level, 0
		for lo < n {
			hi := min(n, lo+n/20+rng.IntN(n/2+1))
			levels = append(levels, segment{k, lo, hi, l})
			l *= 1 + (0.05+0.15*rng.Float64())*float64(1-2*rng.IntN(2))
			lo = hi
		}
	}
	runs := make([]Run, n)
	for i := range runs {
		runs[i] = Run{ID: fmt.Sprintf("run%06d", i), Test: "TestFeed@feed", Commit: fmt.Sprintf("%x", sha1.Sum(fmt.Appendf(nil, "commit %d", i))), Branch: "main",
			Time: t0.Add(time.Duration(i) * time.Minute), Device: "Pixel 7", Manufacturer: "Google", Serial: "emulator-5554",
			Android: "14", API: 34, Package: "com.example.feed", AppVersion: fmt.Sprintf("1.%d", i/1000),
			ReportURL: fmt.Sprintf("https://ci.example.com/runs/%d/TestFeed@feed.html", i)}
	}
	if _, err := s.AddRuns(ctx, runs); err != nil {
		tb.Fatal(err)
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		// The index goes in again after the values, sorted once, rather
		// than row by row.
		if _, err := tx.ExecContext(ctx, `DROP INDEX run_values_by_metric`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE bench_levels (k INTEGER, step TEXT, metric TEXT, unit TEXT, better INTEGER, lo INTEGER, hi INTEGER, level REAL)`); err != nil {
			return err
		}
		for _, sg := range levels {
			m := bigMetrics[sg.k%len(bigMetrics)]
			if _, err := tx.ExecContext(ctx, `INSERT INTO bench_levels VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				sg.k, bigSteps[sg.k/len(bigMetrics)], m.name, m.unit, int(m.better), sg.lo, sg.hi, sg.level); err != nil {
				return err
			}
		}
		// The runs' rowids are 1…n in the order added; the noise is a
		// multiplicative hash of the run and the series.
		_, err := tx.ExecContext(ctx, `INSERT INTO run_values (run_id, step, metric, value, iterations, unit, definition, better)
			SELECT r.id, l.step, l.metric, l.level * (0.95 + 0.1 * (((r.rowid * 2654435761 + l.k * 40503) % 1000003) / 1000003.0)), 5, l.unit, l.metric, l.better
			FROM runs r JOIN bench_levels l ON r.rowid - 1 >= l.lo AND r.rowid - 1 < l.hi
			ORDER BY r.rowid, l.k`)
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DROP TABLE bench_levels`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `CREATE INDEX run_values_by_metric ON run_values (metric, step)`)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
}
