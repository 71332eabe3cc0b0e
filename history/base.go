package history

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	resultpkg "github.com/perfgate/perfgate/result"
)

// DefaultBaseRuns is how many of the base branch's runs a gate reads by
// default: enough to know how much runs differ, recent enough to be the
// branch as it is.
const DefaultBaseRuns = 20

// BaseSide reads the base side of a regression gate from the history: for
// every test, device model, step and metric f matches (f.Branches names
// the base branch), the values of its last n runs (DefaultBaseRuns when n
// ≤ 0), oldest first, one value a run (the median of the run's
// iterations). Keys follow report.SideOf's: the test as the Result names
// it (result.Result.Key), the device as report.DeviceKey names it (its
// model and API level), "" for every device with acrossDevices.
func (s *Store) BaseSide(ctx context.Context, f Filter, n int, acrossDevices bool) (*report.Side, error) {
	if n <= 0 {
		n = DefaultBaseRuns
	}
	w, args := f.where()
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT r.test, r.manufacturer, r.device_model, r.android, r.api, v.step, v.metric, v.value, v.definition
		FROM run_values v JOIN runs r ON r.id = v.run_id`+w+`
		ORDER BY r.test, r.manufacturer, r.device_model, v.step, v.metric, r.started DESC, r.id DESC`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: base runs: %w", s.name, err)
	}
	defer rows.Close()
	side := report.NewSide()
	var order []report.Key
	vals := map[report.Key][]metrics.Metric{}
	for rows.Next() {
		var test, manufacturer, model, android, step, metric, def string
		var api int
		var v float64
		if err := rows.Scan(&test, &manufacturer, &model, &android, &api, &step, &metric, &v, &def); err != nil {
			return nil, fmt.Errorf("history %s: base runs: %w", s.name, err)
		}
		name := report.DeviceKey(manufacturer, model, api)
		side.SetDevice(name, strings.TrimSpace(fmt.Sprintf("%s %s, Android %s (API %d)", manufacturer, model, android, api)))
		if acrossDevices {
			name = ""
		}
		d, ok := metrics.Lookup(metrics.Name(metric))
		if !ok || d.Better == metrics.Neither {
			continue
		}
		k := report.Key{Test: test, Device: name, Step: step, Metric: d.Name}
		if _, seen := vals[k]; !seen {
			order = append(order, k)
		}
		if len(vals[k]) < n {
			vals[k] = append(vals[k], d.Measure(v, def))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: base runs: %w", s.name, err)
	}
	for _, k := range order {
		ms := vals[k]
		// Newest first from the query; the side holds them oldest first.
		for i := len(ms) - 1; i >= 0; i-- {
			side.Add(k, ms[i], nil, 0)
		}
	}
	return side, nil
}

// CompareWithBranches compares next with the base side of the history at
// dsn, which must exist: the last runs runs of each test on branches
// (Store.BaseSide), each Result of next one value a run (report.RunsOf).
// o.From should say where the baseline came from.
func CompareWithBranches(ctx context.Context, dsn string, branches []string, runs int, next []*resultpkg.Result, o report.CompareOptions) (*report.Comparison, error) {
	s, err := OpenExisting(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	side, err := s.BaseSide(ctx, Filter{Branches: branches}, runs, o.AcrossDevices)
	if err != nil {
		return nil, err
	}
	return report.CompareSides(side, report.RunsOf(next, o.AcrossDevices), o), nil
}
