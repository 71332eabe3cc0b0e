package history

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/history/changepoint"
	"github.com/perfgate/perfgate/metrics"
)

// DefaultLast is how many of each series' newest runs Store.Trends reads in
// full unless TrendOptions.Last says otherwise.
const DefaultLast = 500

// A long history is read in two passes. The first reads every run's start
// and id, and every value with its run, step and metric, and nothing else:
// enough to order each series and find its change points. The second
// reads the rest (commit, branch, report link, iterations, unit …) only
// for the runs a trend shows in full: each series' newest ones and the
// runs on either side of its change points. Neither sorts in SQL: the
// runs come in the order of the index on (test, device_model, started),
// and the values in any order, placed by their run.

// runInfo is one run as the first pass reads it.
type runInfo struct {
	id      string
	td      int32 // the run's test and device model, an index into valueRead.tds
	started int64 // Unix ns
}

// seriesValues is one series as the first pass reads it: its runs
// (indexes into valueRead.runs) and their values, oldest first.
type seriesValues struct {
	td, sm int32 // indexes into valueRead.tds and valueRead.sms
	runs   []int32
	vals   []float64
}

// valueRead is what the first pass read.
type valueRead struct {
	runs   []runInfo
	tds    [][2]string // test, device model
	sms    [][2]string // step, metric
	series []seriesValues
}

func (vr *valueRead) key(sv *seriesValues) Key {
	td, sm := vr.tds[sv.td], vr.sms[sv.sm]
	return Key{Test: td[0], Step: sm[0], Metric: sm[1], Device: td[1]}
}

// readValues is the first pass over the series f matches.
func (s *Store) readValues(ctx context.Context, f Filter) (*valueRead, error) {
	vr := &valueRead{}
	rc, ra := f.runConds()
	index, err := s.readRuns(ctx, vr, rc, ra)
	if err != nil {
		return nil, err
	}
	// The values, in parts read at once (an SQLite table in ranges of
	// rowids; PostgreSQL, a server, in one).
	vc, va := f.valueConds()
	if len(rc) > 0 {
		vc = append(vc, "v.run_id IN (SELECT r.id FROM runs r"+whereOf(rc)+")")
		va = append(va, ra...)
	}
	parts, err := s.valueParts(ctx)
	if err != nil {
		return nil, err
	}
	scans := make([]*valueScan, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for p, part := range parts {
		wg.Go(func() {
			scans[p] = &valueScan{keys: map[string]int32{}, at: map[seriesAt]int32{}}
			errs[p] = s.scanValues(ctx, vr, index, append(slices.Clone(vc), part.cond), append(slices.Clone(va), part.args...), scans[p])
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("history %s: series: %w", s.name, err)
		}
	}
	vr.merge(scans)
	return vr, nil
}

// readRuns reads the start and id of every run the conditions rc (with
// arguments ra) select into vr, in the order of the runs' index, and
// returns where each run id went.
func (s *Store) readRuns(ctx context.Context, vr *valueRead, rc []string, ra []any) (map[string]int32, error) {
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT r.id, r.test, r.device_model, r.started FROM runs r`+whereOf(rc)+`
		ORDER BY r.test, r.device_model, r.started, r.id`), ra...)
	if err != nil {
		return nil, fmt.Errorf("history %s: series: %w", s.name, err)
	}
	defer rows.Close()
	index := map[string]int32{}
	var test, device, started sql.RawBytes
	for rows.Next() {
		var id string
		if err := rows.Scan(&id, &test, &device, &started); err != nil {
			return nil, fmt.Errorf("history %s: series: %w", s.name, err)
		}
		t, err := parseTime(string(started))
		if err != nil {
			return nil, fmt.Errorf("history %s: series: run %s: start time %q: %w", s.name, id, started, err)
		}
		if n := len(vr.tds); n == 0 || vr.tds[n-1][0] != string(test) || vr.tds[n-1][1] != string(device) {
			vr.tds = append(vr.tds, [2]string{string(test), string(device)})
		}
		index[id] = int32(len(vr.runs))
		vr.runs = append(vr.runs, runInfo{id: id, td: int32(len(vr.tds) - 1), started: t.UnixNano()})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: series: %w", s.name, err)
	}
	return index, nil
}

// merge joins the series the parts of the first pass read, each series'
// runs in order, the series in order of test, step, metric and device.
func (vr *valueRead) merge(scans []*valueScan) {
	sms := map[[2]string]int32{}
	at := map[seriesAt]int32{}
	for _, sc := range scans {
		for _, sv := range sc.series {
			name := sc.names[sv.sm]
			sm, ok := sms[name]
			if !ok {
				sm = int32(len(vr.sms))
				sms[name] = sm
				vr.sms = append(vr.sms, name)
			}
			k := seriesAt{sv.td, sm}
			i, ok := at[k]
			if !ok {
				i = int32(len(vr.series))
				at[k] = i
				vr.series = append(vr.series, seriesValues{td: k.td, sm: k.sm})
			}
			to := &vr.series[i]
			to.runs = append(to.runs, sv.runs...)
			to.vals = append(to.vals, sv.vals...)
		}
	}
	for i := range vr.series {
		sortByRun(&vr.series[i])
	}
	slices.SortFunc(vr.series, func(a, b seriesValues) int {
		ka, kb := vr.key(&a), vr.key(&b)
		return cmp.Or(cmp.Compare(ka.Test, kb.Test), cmp.Compare(ka.Step, kb.Step), cmp.Compare(ka.Metric, kb.Metric), cmp.Compare(ka.Device, kb.Device))
	})
}

// seriesAt names a series by the indexes of its test and device, and of
// its step and metric.
type seriesAt struct{ td, sm int32 }

// valueScan is what one part of the first pass read.
type valueScan struct {
	keys   map[string]int32 // a value's step and metric as selected (stepMetric) → index into names
	names  [][2]string
	at     map[seriesAt]int32
	series []seriesValues
}

// stepMetric selects a value's step and metric as one text, the step's
// length in bytes first: "6:scrollframe_time_p95". One column costs a
// fifth less to read than two, and the length keeps any names apart.
func (s *Store) stepMetric() string {
	n := "length(CAST(v.step AS BLOB))"
	if s.dialect == postgresDialect {
		n = "octet_length(v.step)"
	}
	return "CAST(" + n + " AS TEXT) || ':' || v.step || v.metric"
}

// splitStepMetric undoes stepMetric.
func splitStepMetric(b []byte) ([2]string, bool) {
	n, rest, ok := strings.Cut(string(b), ":")
	if !ok {
		return [2]string{}, false
	}
	size, err := strconv.Atoi(n)
	if err != nil || size < 0 || size >= len(rest) {
		return [2]string{}, false // (a metric's name is never empty)
	}
	return [2]string{rest[:size], rest[size:]}, true
}

// scanValues reads the values that conds select into sc.
func (s *Store) scanValues(ctx context.Context, vr *valueRead, index map[string]int32, conds []string, args []any, sc *valueScan) error {
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT v.run_id, `+s.stepMetric()+`, v.value FROM run_values v`+whereOf(conds)), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var runID, key sql.RawBytes
	var v float64
	for rows.Next() {
		if err := rows.Scan(&runID, &key, &v); err != nil {
			return err
		}
		ri, ok := index[string(runID)]
		if !ok {
			continue // a run added since the runs were read
		}
		sm, ok := sc.keys[string(key)]
		if !ok {
			name, ok := splitStepMetric(key)
			if !ok {
				return fmt.Errorf("run %s: step and metric %q: not as selected", vr.runs[ri].id, key)
			}
			sm = int32(len(sc.names))
			sc.keys[string(key)] = sm
			sc.names = append(sc.names, name)
		}
		k := seriesAt{vr.runs[ri].td, sm}
		i, ok := sc.at[k]
		if !ok {
			i = int32(len(sc.series))
			sc.at[k] = i
			sc.series = append(sc.series, seriesValues{td: k.td, sm: k.sm})
		}
		sv := &sc.series[i]
		sv.runs = append(sv.runs, ri)
		sv.vals = append(sv.vals, v)
	}
	return rows.Err()
}

// valuePart is a condition that selects one part of the values.
type valuePart struct {
	cond string
	args []any
}

// valueParts splits the values of an SQLite history into ranges of rowids
// read at once, one per processor; a PostgreSQL history is read whole.
func (s *Store) valueParts(ctx context.Context) ([]valuePart, error) {
	n := runtime.GOMAXPROCS(0)
	if s.dialect != sqliteDialect || n < 2 {
		return []valuePart{{cond: "1 = 1"}}, nil
	}
	var lo, hi sql.NullInt64
	// Each on its own, which SQLite answers from the ends of the table.
	if err := s.db.QueryRowContext(ctx, "SELECT (SELECT MIN(rowid) FROM run_values), (SELECT MAX(rowid) FROM run_values)").Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("history %s: series: %w", s.name, err)
	}
	if !lo.Valid || hi.Int64-lo.Int64 < 10_000 {
		return []valuePart{{cond: "1 = 1"}}, nil
	}
	var out []valuePart
	step := (hi.Int64 - lo.Int64) / int64(n)
	for i := range n {
		a, b := lo.Int64+int64(i)*step, lo.Int64+int64(i+1)*step-1
		if i == n-1 {
			b = hi.Int64
		}
		out = append(out, valuePart{cond: "v.rowid BETWEEN ? AND ?", args: []any{a, b}})
	}
	return out, nil
}

// sortByRun puts a series' values in the order of their runs, which is
// the order the runs started in (the values came in table order, mostly
// that already).
func sortByRun(sv *seriesValues) {
	if slices.IsSorted(sv.runs) {
		return
	}
	type entry struct {
		run int32
		val float64
	}
	es := make([]entry, len(sv.runs))
	for i := range es {
		es[i] = entry{sv.runs[i], sv.vals[i]}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.run, b.run) })
	for i, e := range es {
		sv.runs[i], sv.vals[i] = e.run, e.val
	}
}

// runDetail and valueDetail are what the second pass reads of a run and of
// one of its values.
type runDetail struct {
	commit, branch, android, appVersion, reportURL string
}

type valueDetail struct {
	iterations       int
	unit, definition string
	better           metrics.Better
}

// details is the second pass: the runs need names in full, and their
// values of the steps and metrics f matches.
func (s *Store) details(ctx context.Context, vr *valueRead, need []int32, f Filter) (map[int32]runDetail, map[[2]int32]valueDetail, error) {
	slices.Sort(need)
	need = slices.Compact(need)
	runs := make(map[int32]runDetail, len(need))
	values := map[[2]int32]valueDetail{}
	index := make(map[string]int32, len(need))
	for _, ri := range need {
		index[vr.runs[ri].id] = ri
	}
	smOf := map[[2]string]int32{}
	for i, sm := range vr.sms {
		smOf[sm] = int32(i)
	}
	vc, va := f.valueConds()
	// Few enough ids per statement for either database's limit on
	// parameters.
	const chunk = 500
	for from := 0; from < len(need); from += chunk {
		ids := need[from:min(from+chunk, len(need))]
		args := make([]any, len(ids))
		for i, ri := range ids {
			args[i] = vr.runs[ri].id
		}
		in := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
		rows, err := s.db.QueryContext(ctx, s.bind(`SELECT r.id, r.commit_sha, r.branch, r.android, r.app_version, r.report_url FROM runs r WHERE r.id IN `+in), args...)
		if err != nil {
			return nil, nil, fmt.Errorf("history %s: runs: %w", s.name, err)
		}
		for rows.Next() {
			var id string
			var d runDetail
			if err := rows.Scan(&id, &d.commit, &d.branch, &d.android, &d.appVersion, &d.reportURL); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("history %s: runs: %w", s.name, err)
			}
			runs[index[id]] = d
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("history %s: runs: %w", s.name, err)
		}
		rows, err = s.db.QueryContext(ctx, s.bind(`SELECT v.run_id, v.step, v.metric, v.iterations, v.unit, v.definition, v.better FROM run_values v
			WHERE v.run_id IN `+in+strings.Join(append([]string{""}, vc...), " AND ")), append(args, va...)...)
		if err != nil {
			return nil, nil, fmt.Errorf("history %s: values: %w", s.name, err)
		}
		for rows.Next() {
			var id, step, metric string
			var d valueDetail
			var better int
			if err := rows.Scan(&id, &step, &metric, &d.iterations, &d.unit, &d.definition, &better); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("history %s: values: %w", s.name, err)
			}
			d.better = metrics.Better(better)
			if sm, ok := smOf[[2]string{step, metric}]; ok {
				values[[2]int32{index[id], sm}] = d
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, fmt.Errorf("history %s: values: %w", s.name, err)
		}
	}
	return runs, values, nil
}

// read reads the series f matches, each with its newest last runs in full
// (every run when last < 0).
func (s *Store) read(ctx context.Context, f Filter, last int) (*reading, error) {
	vr, err := s.readValues(ctx, f)
	if err != nil {
		return nil, err
	}
	rd := &reading{vr: vr}
	var need []int32
	for i := range vr.series {
		need = append(need, vr.series[i].runs[rd.firstFull(i, last):]...)
	}
	if err := rd.fill(ctx, s, f, need); err != nil {
		return nil, err
	}
	for i := range vr.series {
		rd.series = append(rd.series, rd.seriesOf(i, last))
	}
	return rd, nil
}

// reading is a read of the series with the details of some of their runs.
type reading struct {
	vr     *valueRead
	runs   map[int32]runDetail
	values map[[2]int32]valueDetail
	series []Series
}

func (rd *reading) fill(ctx context.Context, s *Store, f Filter, need []int32) error {
	var err error
	rd.runs, rd.values, err = s.details(ctx, rd.vr, need, f)
	return err
}

// firstFull is the first run of series i read in full.
func (rd *reading) firstFull(i, last int) int {
	n := len(rd.vr.series[i].runs)
	if last < 0 || n <= last {
		return 0
	}
	return n - last
}

// pointOf is run k of series i in full.
func (rd *reading) pointOf(i, k int) Point {
	sv := &rd.vr.series[i]
	ri := sv.runs[k]
	r, d := rd.vr.runs[ri], rd.runs[ri]
	return Point{RunID: r.id, Commit: d.commit, Branch: d.branch, Time: time.Unix(0, r.started).UTC(), Value: sv.vals[k],
		Iterations: rd.values[[2]int32{ri, sv.sm}].iterations, Android: d.android, AppVersion: d.appVersion, ReportURL: d.reportURL}
}

// seriesOf is series i with its runs from firstFull on in full.
func (rd *reading) seriesOf(i, last int) Series {
	sv := &rd.vr.series[i]
	from := rd.firstFull(i, last)
	n := len(sv.runs)
	newest := rd.values[[2]int32{sv.runs[n-1], sv.sm}]
	sr := Series{Key: rd.vr.key(sv), Unit: newest.unit, Definition: newest.definition, Better: newest.better, Older: from}
	for k := from; k < n; k++ {
		sr.Points = append(sr.Points, rd.pointOf(i, k))
	}
	if from > 0 {
		sr.values = sv.vals
		sr.times = make([]int64, n)
		for k, ri := range sv.runs {
			sr.times[k] = rd.vr.runs[ri].started
		}
	}
	return sr
}

// Trends reads the series f matches and finds the change points of each,
// in bounded memory however long the history: every run's value goes
// into the change point detection, but only the newest o.Last runs of a
// series (DefaultLast when 0, all when negative) and the runs on either
// side of its change points are read in full. The older runs are values
// and times only (Series.Older; Series.Value, Series.Time). Series are
// analysed in parallel, one per processor.
func (s *Store) Trends(ctx context.Context, f Filter, o TrendOptions) ([]Trend, error) {
	last := o.Last
	if last == 0 {
		last = DefaultLast
	}
	vr, err := s.readValues(ctx, f)
	if err != nil {
		return nil, err
	}
	changes := make([][]changepoint.Change, len(vr.series))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(vr.series)) {
		wg.Go(func() {
			for i := range next {
				changes[i] = changepoint.Detect(vr.series[i].vals, o.Detect, o.Window)
			}
		})
	}
	for i := range vr.series {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("history %s: trends: %w", s.name, err)
	}

	rd := &reading{vr: vr}
	var need []int32
	for i := range vr.series {
		sv := &vr.series[i]
		need = append(need, sv.runs[rd.firstFull(i, last):]...)
		for _, c := range changes[i] {
			need = append(need, sv.runs[c.Index-1], sv.runs[c.Index])
		}
	}
	if err := rd.fill(ctx, s, f, need); err != nil {
		return nil, err
	}
	out := make([]Trend, len(vr.series))
	for i := range vr.series {
		sr := rd.seriesOf(i, last)
		t := Trend{Series: sr}
		for _, c := range changes[i] {
			t.Changes = append(t.Changes, changeOf(c, rd.pointOf(i, c.Index), rd.pointOf(i, c.Index-1), sr.Better))
		}
		out[i] = t
	}
	return out, nil
}
