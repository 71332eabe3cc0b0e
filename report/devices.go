package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// BudgetsFor is the budgets a Result is checked against: Budgets, and
// BudgetFile's budgets for the Result's device model.
func (o Options) BudgetsFor(r *result.Result) []budget.Limit {
	if o.BudgetFile == nil {
		return o.Budgets
	}
	own, _ := o.BudgetFile.LimitsFor(r.Device)
	return append(slices.Clip(o.Budgets), own...)
}

// forResult is o for one Result: Budgets are the ones it is checked
// against, BudgetFile done with.
func (o Options) forResult(r *result.Result) Options {
	o.Budgets, o.BudgetFile = o.BudgetsFor(r), nil
	return o
}

// deviceTable is one step of one test on several devices, side by side.
type deviceTable struct {
	Test, Step string
	Devices    []string // column headers
	Rows       []deviceRow
}

// deviceRow is one metric across the devices of a table.
type deviceRow struct {
	Metric metrics.Name
	Unit   string
	Cells  []deviceCell
	// Worst is the cell of the device that did worst, by the metric's
	// direction; -1 when fewer than two devices measured it or all agree.
	Worst int
}

// deviceCell is one device's figure; a device that did not measure the
// metric says "not measured", never 0.
type deviceCell struct {
	Text    string
	Verdict string // "pass", "fail" or "" without a budget
}

// deviceKey names a Result's device in a column header: model and API
// level, and the serial, since a lab can hold two phones of one model.
func deviceKey(r *result.Result) string {
	d := r.Device
	name := d.Name()
	if name == "" {
		name = "unknown model"
	}
	if d.API > 0 {
		name += fmt.Sprintf(" (API %d)", d.API)
	}
	if d.Serial != "" {
		name += " " + d.Serial
	}
	return name
}

// deviceRun is one test's Result on one device.
type deviceRun struct {
	r      *result.Result
	device string
}

// deviceColumn is one device's figures for a step of a device table.
type deviceColumn struct {
	ms      []metrics.Metric
	verdict map[metrics.Name]string
	found   bool
}

// deviceTables lines up the Results of each test that ran on more than one
// device: per test and step, one column a device, one row a summary
// metric (metrics.Catalogue's Summary ones, and every budgeted one), the
// worst device of each row marked. Tests on one device get no table.
func deviceTables(results []*result.Result, opts Options) []deviceTable {
	tests, byTest := runsByTest(results)
	var out []deviceTable
	for _, test := range tests {
		runs := byTest[test]
		if len(runs) < 2 {
			continue
		}
		var steps []string
		for _, x := range runs {
			for _, st := range x.r.Steps {
				if !slices.Contains(steps, st.Name) {
					steps = append(steps, st.Name)
				}
			}
		}
		for _, step := range steps {
			out = append(out, deviceTableOf(test, step, runs, opts))
		}
	}
	return out
}

// runsByTest groups results by test, in the order tests first appear,
// one run a device: a second session of a test on one device has its own
// section in the report.
func runsByTest(results []*result.Result) ([]string, map[string][]deviceRun) {
	byTest := map[string][]deviceRun{}
	var tests []string
	for _, r := range results {
		name := r.Key()
		if _, ok := byTest[name]; !ok {
			tests = append(tests, name)
		}
		dk := deviceKey(r)
		if slices.ContainsFunc(byTest[name], func(x deviceRun) bool { return x.device == dk }) {
			continue
		}
		byTest[name] = append(byTest[name], deviceRun{r, dk})
	}
	return tests, byTest
}

// deviceTableOf is the table of one step of a test across its runs.
func deviceTableOf(test, step string, runs []deviceRun, opts Options) deviceTable {
	t := deviceTable{Test: test, Step: step}
	cols := make([]deviceColumn, len(runs))
	budgeted := map[metrics.Name]bool{}
	for i, x := range runs {
		t.Devices = append(t.Devices, x.device)
		st := x.r.Step(step)
		if st == nil {
			continue
		}
		c := deviceColumn{ms: StepMetrics(st), verdict: map[metrics.Name]string{}, found: true}
		vs := stepVerdicts(x.r, st, opts.BudgetsFor(x.r))
		for _, v := range vs {
			if v.Metric != "" && v.Kind == budget.KindBudget {
				budgeted[v.Metric] = true
				c.verdict[v.Metric], _ = metricVerdict(vs, v.Metric)
			}
		}
		cols[i] = c
	}
	for _, d := range metrics.Catalogue() {
		if !d.Summary && !budgeted[d.Name] {
			continue
		}
		if row, ok := deviceRowOf(d, cols); ok {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// deviceRowOf is the row of metric d across the columns, the worst device
// marked when at least two measured it and they differ; false when no
// device measured it.
func deviceRowOf(d metrics.Def, cols []deviceColumn) (deviceRow, bool) {
	row := deviceRow{Metric: d.Name, Unit: d.Unit, Worst: -1}
	measured := 0
	var worst float64
	same := true
	for i, c := range cols {
		cell := deviceCell{Text: "no such step"}
		if c.found {
			cell = deviceCell{Text: "not measured", Verdict: c.verdict[d.Name]}
			if m, ok := find(c.ms, d.Name); ok {
				cell.Text = metrics.FormatValue(m.Value, "")
				switch {
				case measured == 0:
					row.Worst, worst = i, m.Value
				case m.Value != worst:
					same = false
					if d.Floor() == (m.Value < worst) {
						row.Worst, worst = i, m.Value
					}
				}
				measured++
			}
		}
		row.Cells = append(row.Cells, cell)
	}
	if measured < 2 || same {
		row.Worst = -1
	}
	return row, measured > 0
}

// markdownDevices writes the devices-side-by-side tables.
func markdownDevices(b *strings.Builder, tables []deviceTable) {
	if len(tables) == 0 {
		return
	}
	b.WriteString("### Devices side by side\n\nThe worst device of each metric is in bold, marked 🔻.\n\n")
	for _, t := range tables {
		fmt.Fprintf(b, "#### %s · `%s`\n\n| metric |", mdEscape(t.Test), codeSpan(t.Step))
		for _, d := range t.Devices {
			fmt.Fprintf(b, " %s |", mdEscape(d))
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(t.Devices)) + "\n")
		for _, r := range t.Rows {
			fmt.Fprintf(b, "| %s (%s) |", r.Metric, mdEscape(r.Unit))
			for i, c := range r.Cells {
				text := mdEscape(c.Text)
				if i == r.Worst {
					text = "**" + text + "** 🔻"
				}
				switch c.Verdict {
				case "pass":
					text += " ✅"
				case "fail":
					text += " ❌"
				}
				fmt.Fprintf(b, " %s |", text)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
}
