package budget

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/metrics"
)

// CheckFile judges every budget of a budget file against the run: each
// step the file names, and every iteration of it ("scroll#2" against the
// budgets of "scroll"), against each of its entries with a limit. A step the
// file names that the run lacks fails, naming the file and the line of
// its budgets: a misspelt step must not pass unchecked. In a file with
// budgets per model the run is judged against its model's budgets added to
// the shared ones (see File.For). Notes say what a reader should know that
// is no verdict (a model without budgets of its own).
func CheckFile(r Run, f *File) (vs []Verdict, notes []string) {
	steps, own := f.For(r.RunDevice())
	if !own {
		name, models := deviceName(r.RunDevice()), strings.Join(slices.Sorted(maps.Keys(f.Models)), ", ")
		if len(steps) == 0 {
			line := fmt.Sprintf("perf budget: %s has no budgets of its own in %s (it has %s); run 'go test . -update' on that device to record them", name, f.Path, models)
			return []Verdict{{Kind: KindBudget, Status: NotChecked, From: f.Path, Reason: "no budgets for the device's model", Line: line}}, nil
		}
		notes = append(notes, fmt.Sprintf("perf budget: %s has no budgets of its own in %s (it has %s); checking the budgets every other model shares", name, f.Path, models))
	}
	ms := r.Measurements()
	for _, step := range slices.Sorted(maps.Keys(steps)) {
		entries := steps[step]
		names := slices.Sorted(maps.Keys(entries))
		var limited []string
		for _, n := range names {
			if _, has := entries[n].Limit(n); has {
				limited = append(limited, n)
			}
		}
		if len(limited) == 0 {
			continue
		}
		var mine []Measurement
		for _, m := range ms {
			if metrics.BaseStep(m.Step) == step && !m.Missing {
				mine = append(mine, m)
			}
		}
		if len(mine) == 0 {
			first := entries[limited[0]]
			l, _ := first.Limit(limited[0])
			l.Step = step
			from := f.Where(first)
			v := Judge(Measurement{Step: step, Missing: true}, l, from)
			v.Reason = fmt.Sprintf("the run has no step %q; budgets at %s", step, from)
			v.Line = v.budgetLine()
			vs = append(vs, v)
			continue
		}
		for _, m := range mine {
			for _, n := range limited {
				l, _ := entries[n].Limit(n)
				l.Step = step
				vs = append(vs, Judge(m, l, f.Where(entries[n])))
			}
		}
	}
	return vs, notes
}

// Where names an entry of the file as path:line, for a verdict's From.
func (f *File) Where(e *Entry) string {
	if e == nil || e.Line == 0 {
		return f.Path
	}
	return f.Path + ":" + strconv.Itoa(e.Line)
}

// deviceName names a device in a message: its model, else its serial.
func deviceName(d procfs.DeviceFacts) string {
	if n := d.Name(); n != "" {
		return strconv.Quote(n)
	}
	if d.Serial != "" {
		return "device " + strconv.Quote(d.Serial)
	}
	return "a device of unknown model"
}

// UnknownStep is a budget file's step that what it is checked against
// does not have (a misspelt step would be a budget nobody checks).
type UnknownStep struct {
	// Step is the step's name, Model the model whose budgets name it (""
	// for the shared ones).
	Step, Model string
	// Where is the file and line of the step's first budget.
	Where string
}

// UnknownSteps lists the steps of the file's budgets, shared and per
// model, that have reports false for, each with the file and line of its
// first budget, in the file's order of models and steps.
func (f *File) UnknownSteps(have func(step string) bool) []UnknownStep {
	var out []UnknownStep
	check := func(steps map[string]map[string]*Entry, model string) {
		for _, step := range slices.Sorted(maps.Keys(steps)) {
			if have(step) {
				continue
			}
			var first *Entry
			for _, e := range steps[step] {
				if first == nil || e.Line < first.Line {
					first = e
				}
			}
			out = append(out, UnknownStep{Step: step, Model: model, Where: f.Where(first)})
		}
	}
	check(f.Steps, "")
	for _, model := range slices.Sorted(maps.Keys(f.Models)) {
		check(f.Models[model].Steps, model)
	}
	return out
}
