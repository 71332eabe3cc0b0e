package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/jsondup"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
)

// File is a checked scenario file, the JSON `perfgate run` reads: an app,
// its steps of actions, their budgets, where the Results go and whether a
// Perfetto trace is recorded.
//
//	f, err := scenario.ParseFile("feed.json", b, scenario.ParseOptions{})
//	s, err := scenario.New(ctx, dev, f.Package, f.Config())
//	f.Run(ctx, s, nil)
//	r := s.Stop()
//	notes := f.Judge(r, budgets, false, budget.Headroom{Pct: 10})
type File struct {
	// Path is the file's path; a budget file, the results folder and a
	// workload file are relative to its folder.
	Path    string
	Package string
	// Simulated is the simulated phone the file runs on; nil for a device.
	Simulated *Simulated
	Steps     []FileStep
	// Budgets are the file's inline budgets, or BudgetPath the budget file
	// it names (relative to the scenario's folder, never a bare name).
	Budgets    *budget.File
	BudgetPath string
	// ResultsDir is the folder the Results go to: "results", relative to
	// the scenario's folder, else perf-results beside it.
	ResultsDir string
	// Trace is the session's trace; nil when the file asks for none.
	Trace *perftest.TraceConfig
	// UnplugBattery ("unplug_battery": true) unplugs the battery for the
	// session (perftest.UnplugBattery).
	UnplugBattery bool
	// HeapDumps ("heap_dumps": true) dumps the app's Java heap around the
	// session's steps (perftest.Config.HeapDumps).
	HeapDumps bool
}

// FileStep is a step of a scenario file.
type FileStep struct {
	Name    string
	Actions []Action
	// ExpectCrash says the app is meant to crash (or stop responding) in
	// the step; any other step's crash fails the run.
	ExpectCrash bool
}

// Simulated is a scenario file's "simulated": the simulated phone it runs
// on, which the caller starts (no library package depends on the
// simulator).
type Simulated struct {
	// Workload is a preset's name or a workload JSON file relative to the
	// scenario's folder.
	Workload string `json:"workload"`
	API      int    `json:"api,omitempty"`
	// Noise makes the simulated phone vary from run to run and frame to
	// frame as real ones do (simdevice.Noise), as the file has it.
	Noise json.RawMessage `json:"noise,omitempty"`
}

// ParseOptions is what ParseFile cannot check by itself.
type ParseOptions struct {
	// CheckSimulated checks a file's "simulated" (dir is the scenario's
	// folder); nil accepts any.
	CheckSimulated func(s *Simulated, dir string) error
}

// fileJSON is a scenario file as written.
type fileJSON struct {
	Package   string          `json:"package"`
	Simulated *Simulated      `json:"simulated,omitempty"`
	Steps     []stepJSON      `json:"steps"`
	Budgets   json.RawMessage `json:"budgets,omitempty"`
	Results   string          `json:"results,omitempty"`
	Trace     *traceJSON      `json:"trace,omitempty"`
	// UnplugBattery is File.UnplugBattery.
	UnplugBattery bool `json:"unplug_battery,omitempty"`
	// HeapDumps is File.HeapDumps.
	HeapDumps bool `json:"heap_dumps,omitempty"`
}

type stepJSON struct {
	Name        string       `json:"name"`
	Actions     []actionJSON `json:"actions"`
	ExpectCrash bool         `json:"expect_crash,omitempty"`
}

// ParseFile reads and checks the scenario file at path, whose content is
// b; errors name the file, the step and the action, and quote a bounded
// excerpt of the bad value. A key given twice in one object is an error.
func ParseFile(path string, b []byte, o ParseOptions) (*File, error) {
	fj, err := decodeFile(path, b)
	if err != nil {
		return nil, err
	}
	if err := dumpsys.ValidatePackage(fj.Package); err != nil {
		return nil, fmt.Errorf("%s: package %s: %s", path, excerpt.Quote(fj.Package), excerpt.Text(err.Error()))
	}
	if fj.Simulated != nil && o.CheckSimulated != nil {
		if err := o.CheckSimulated(fj.Simulated, filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("%s: simulated: %v", path, err)
		}
	}
	if len(fj.Steps) == 0 {
		return nil, fmt.Errorf("%s: no steps", path)
	}
	f := &File{Path: path, Package: fj.Package, Simulated: fj.Simulated, ResultsDir: resultsDir(path, fj.Results), UnplugBattery: fj.UnplugBattery, HeapDumps: fj.HeapDumps}
	if f.Trace, err = fj.Trace.config(); err != nil {
		return nil, fmt.Errorf("%s: trace: %s", path, excerpt.Text(err.Error()))
	}
	if f.Steps, err = fileSteps(path, fj.Steps); err != nil {
		return nil, err
	}
	if err := f.parseBudgets(b, fj.Budgets); err != nil {
		return nil, err
	}
	return f, nil
}

// decodeFile decodes a scenario file strictly: no key twice, no unknown
// key; a syntax error names its line.
func decodeFile(path string, b []byte) (*fileJSON, error) {
	if d := jsondup.Find(b); d != nil {
		return nil, d.Error(path)
	}
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: bad JSON: %s", path, 1+bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")), excerpt.Text(err.Error()))
		}
		return nil, fmt.Errorf("%s: %s", path, excerpt.Text(err.Error()))
	}
	return &f, nil
}

// resultsDir is the Results' folder: the scenario's, as its budget file's
// is, relative to the scenario file rather than to wherever perfgate runs.
func resultsDir(path, results string) string {
	if results == "" {
		results = "perf-results"
	}
	if !filepath.IsAbs(results) {
		results = filepath.Join(filepath.Dir(path), results)
	}
	return results
}

// fileSteps checks the steps: each named once, without '#' or newlines,
// with actions a perftest step can run.
func fileSteps(path string, steps []stepJSON) ([]FileStep, error) {
	var out []FileStep
	seen := map[string]bool{}
	for i, st := range steps {
		where := fmt.Sprintf("%s: step %d %s", path, i+1, excerpt.Quote(st.Name))
		if strings.TrimSpace(st.Name) == "" || strings.ContainsAny(st.Name, "#\n") {
			return nil, fmt.Errorf("%s: a step needs a name without '#' or newlines", where)
		}
		if seen[st.Name] {
			return nil, fmt.Errorf("%s: the name is used twice (a step's iterations go in one step)", where)
		}
		seen[st.Name] = true
		if len(st.Actions) == 0 {
			return nil, fmt.Errorf("%s: no actions", where)
		}
		fs := FileStep{Name: st.Name, ExpectCrash: st.ExpectCrash}
		for j, a := range st.Actions {
			act, err := a.action()
			if err != nil {
				return nil, fmt.Errorf("%s: action %d %s: %v", where, j+1, excerpt.Quote(a.Action), err)
			}
			fs.Actions = append(fs.Actions, act)
		}
		out = append(out, fs)
	}
	return out, nil
}

// parseBudgets reads "budgets": the path of a budget file, or a budget
// file's "steps" inline, whose steps must be the scenario's.
func (f *File) parseBudgets(whole, raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		bf, err := inlineBudgets(f.Path, whole, raw)
		if err != nil {
			return err
		}
		if err := f.checkBudgetSteps(bf); err != nil {
			return err
		}
		f.Budgets = bf
		return nil
	}
	if s == "" {
		return fmt.Errorf("%s: budgets: empty path", f.Path)
	}
	if !filepath.IsAbs(s) {
		// Relative to the scenario file, and never a bare name, which
		// assert would read from testdata/.
		s = filepath.Join(filepath.Dir(f.Path), s)
		if !filepath.IsAbs(s) {
			s = "." + string(filepath.Separator) + s
		}
	}
	f.BudgetPath = s
	return nil
}

// checkBudgetSteps refuses budgets of a step the scenario does not have:
// a misspelt step would otherwise be a budget nobody checks. The error
// names the file and line of the step's first budget.
func (f *File) checkBudgetSteps(bf *budget.File) error {
	steps := map[string]bool{}
	names := make([]string, len(f.Steps))
	for i, st := range f.Steps {
		steps[st.Name], names[i] = true, st.Name
	}
	u := bf.UnknownSteps(func(step string) bool { return steps[step] })
	if len(u) == 0 {
		return nil
	}
	model := ""
	if u[0].Model != "" {
		model = " of model " + strconv.Quote(u[0].Model)
	}
	return fmt.Errorf("%s: budgets%s of step %s, which the scenario does not have (its steps: %s)", u[0].Where, model, excerpt.Quote(u[0].Step), strings.Join(names, ", "))
}

var budgetLine = regexp.MustCompile(`^budgets:(\d+): `)

// inlineBudgets parses the "budgets" object with the budget file parser,
// naming lines of the scenario file in its errors.
func inlineBudgets(path string, whole, raw []byte) (*budget.File, error) {
	doc := append([]byte(`{"schema": "`+budget.BudgetSchema+`", "steps": `), raw...)
	doc = append(doc, '}')
	// The wrapped document's first line is the scenario's line of
	// "budgets".
	first := 1 + bytes.Count(whole[:bytes.Index(whole, raw)], []byte("\n"))
	bf, err := budget.ParseBudgetFile("budgets", doc)
	if err != nil {
		msg := err.Error()
		if m := budgetLine.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			msg = fmt.Sprintf("%s:%d: budgets: %s", path, first+n-1, msg[len(m[0]):])
		} else {
			msg = path + ": " + msg
		}
		return nil, errors.New(msg)
	}
	bf.Path = path
	steps := []map[string]map[string]*budget.Entry{bf.Steps}
	for _, m := range bf.Models {
		steps = append(steps, m.Steps)
	}
	for _, s := range steps {
		for _, es := range s {
			for _, e := range es {
				e.Line += first - 1
			}
		}
	}
	return bf, nil
}

// ReadBudgets returns the budgets the file names: its inline ones, or its
// budget file read and checked against its steps (an error that says how
// to record it when there is none yet); nil when it names none. Read them
// before anything is measured: a misspelt step would be a budget nobody
// checks.
func (f *File) ReadBudgets() (*budget.File, error) {
	if f.Budgets != nil || f.BudgetPath == "" {
		return f.Budgets, nil
	}
	bf, err := budget.ReadBudgetFile(f.BudgetPath)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("budget file %s does not exist: run 'perfgate run -update %s' to record it", f.BudgetPath, f.Path)
	}
	if err != nil {
		return nil, err
	}
	if err := f.checkBudgetSteps(bf); err != nil {
		return nil, err
	}
	return bf, nil
}

// Config is the configuration of the file's session: named after the
// file, its Results in ResultsDir, its trace, and the steps that are meant
// to crash.
func (f *File) Config() perftest.Config {
	name := strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path))
	cfg := perftest.Config{Name: name, ResultsDir: f.ResultsDir, HeapDumps: f.HeapDumps}
	cfg.Energy.UnplugBattery = f.UnplugBattery
	if f.Trace != nil {
		perftest.WithTrace(*f.Trace)(&cfg)
	}
	var expect []string
	for _, st := range f.Steps {
		if st.ExpectCrash {
			expect = append(expect, st.Name)
		}
	}
	perftest.ExpectCrash(expect...)(&cfg)
	return cfg
}

// Run runs the file's steps on s in order, until the last or until ctx
// ends: the step in progress then ends unfinished and the rest are not run.
// begin, when not nil, is called once each step is open (i counts from 0),
// so a stop that follows what it prints always lands inside the step.
func (f *File) Run(ctx context.Context, s *Scenario, begin func(i int)) {
	for i, st := range f.Steps {
		if ctx.Err() != nil {
			break
		}
		acts := st.Actions
		if begin != nil {
			begun := Func("begin", func(context.Context, *Driver) error { begin(i); return nil })
			acts = append([]Action{begun}, acts...)
		}
		s.StepContext(ctx, st.Name, acts...)
	}
}

// Judge checks r against budgets (ReadBudgets'), or with update rewrites
// the file's budget file from r, leaving headroom above (below, for
// floors) each value, and records every verdict in r: broken budgets,
// refused updates. It returns the notes a user should see.
func (f *File) Judge(r *result.Result, budgets *budget.File, update bool, headroom budget.Headroom) []string {
	switch {
	case update:
		u, err := budget.RecordBudgets(r, f.BudgetPath, headroom, budget.PolicyFromEnv())
		if err != nil {
			r.RecordVerdicts(budget.Verdict{Kind: budget.KindUpdate, Status: budget.Fail, From: f.BudgetPath, Reason: err.Error(), Line: err.Error()})
		}
		r.RecordVerdicts(u.Refused...)
		return u.Notes
	case budgets != nil:
		vs, notes := budget.CheckFile(r, budgets)
		r.RecordVerdicts(vs...)
		return notes
	}
	return nil
}
