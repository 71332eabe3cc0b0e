package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/jsondup"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

const runUsage = `usage: perfgate run [-update] [-serial S] [-adb host:port] scenario.json
       perfgate run -pool [-per-model] [-parallel N] [-shard k/n] [-update] scenario.json

Runs a scenario file: launches and drives the app through uiautomator2, each
step measured, then checks the file's budgets. Exits 1 when a step fails or
a budget breaks. Ctrl-C, SIGTERM or SIGHUP stops it: the step in progress is
marked unfinished, the Result of every step so far is written, budgets are
not checked (nor rewritten), and the exit status is 130, 143 or 129. The
file (JSON):

  {
    "package": "com.example.feed",
    "simulated": { "workload": "janky-scroll", "api": 33 },
    "steps": [
      { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 3 } ] },
      { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 5 } ] }
    ],
    "budgets": { "launch": { "startup_initial": { "max": 1000 } }, "scroll": { "jank": { "max": 3 } } },
    "results": "perf-out",
    "trace": true
  }

"simulated" runs on a simulated phone started in-process; without it the
device is -serial, $ANDROID_SERIAL or the only one attached. "budgets" is a
budget file's "steps" inline, or the path of a budget file (relative to the
scenario file), which -update rewrites from the run. "results" is the
folder the Results go to, relative to the scenario file (default
perf-results beside it); a file there that is not a perfgate Result (the
scenario itself) is never replaced. Actions: launch (kind
cold|warm|hot, iterations, fully_drawn_ms, activity), tap (text|id|desc),
tap_at (x, y), swipe and fling (direction up|down|left|right, count,
distance, duration_ms), back, home, key (code), type (text|id|desc, input),
wait (text|id|desc, timeout_ms), sleep (ms). Every *_ms and ms value is at
most 600000 (10 minutes), iterations and count at most 1000. A key given
twice in one object is an error. A
crash or ANR of the app fails its step unless the step says
"expect_crash": true.
With -pool the scenario runs on every device of a device pool ($PERFGATE_POOL,
$PERFGATE_ADB_SERVERS, $PERFGATE_DEVICE_MODELS, $PERFGATE_DEVICE_API,
$PERFGATE_DEVICE_SERIAL; see package devicepool), or on one of each model,
at most -parallel at once, each writing its own Result; -shard k/n takes
every n-th device, for CI jobs that split a lab. A phone that two servers
list, or one on USB and TCP at once, runs once (it says which serials it
took for one phone).
"trace" records a Perfetto trace around the steps (Android 10+; FrameTimeline
jank types on 12+) into the results folder: true, or an object with
buffer_kb (1024 to 1048576), categories (atrace categories) and
max_duration_ms.
`

// scenarioFile is a `perfgate run` file.
type scenarioFile struct {
	Package   string          `json:"package"`
	Simulated *simulatedSpec  `json:"simulated,omitempty"`
	Steps     []stepSpec      `json:"steps"`
	Budgets   json.RawMessage `json:"budgets,omitempty"`
	Results   string          `json:"results,omitempty"`
	Trace     *traceSpec      `json:"trace,omitempty"`
}

// traceSpec is a scenario file's "trace": true, or an object with the
// trace's settings (perftest.TraceConfig).
type traceSpec struct {
	On            bool     `json:"-"`
	BufferKB      int      `json:"buffer_kb,omitempty"`
	Categories    []string `json:"categories,omitempty"`
	MaxDurationMs int      `json:"max_duration_ms,omitempty"`
}

func (t *traceSpec) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*t = traceSpec{On: on}
		return nil
	}
	type plain traceSpec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("trace: want true, false or {\"buffer_kb\", \"categories\", \"max_duration_ms\"}: %v", err)
	}
	*t = traceSpec(p)
	t.On = true
	return nil
}

// config is the session's TraceConfig; nil when the file asks for none.
func (t *traceSpec) config() (*perftest.TraceConfig, error) {
	if t == nil || !t.On {
		return nil, nil
	}
	if t.MaxDurationMs < 0 {
		return nil, fmt.Errorf("max_duration_ms %d is negative", t.MaxDurationMs)
	}
	tc := &perftest.TraceConfig{BufferKB: t.BufferKB, Categories: t.Categories, MaxDuration: time.Duration(t.MaxDurationMs) * time.Millisecond}
	if err := tc.Validate(); err != nil {
		return nil, err
	}
	return tc, nil
}

type simulatedSpec struct {
	Workload string `json:"workload"`
	API      int    `json:"api,omitempty"`
	// Noise makes the simulated phone vary from run to run and frame to
	// frame as real ones do (simdevice.Noise).
	Noise *simdevice.Noise `json:"noise,omitempty"`
}

type stepSpec struct {
	Name    string       `json:"name"`
	Actions []actionSpec `json:"actions"`
	// ExpectCrash says the app is meant to crash (or stop responding) in
	// the step; any other step's crash fails the run.
	ExpectCrash bool `json:"expect_crash,omitempty"`
}

type actionSpec struct {
	Action     string  `json:"action"`
	Kind       string  `json:"kind,omitempty"`
	Iterations int     `json:"iterations,omitempty"`
	FullyDrawn int     `json:"fully_drawn_ms,omitempty"`
	Activity   string  `json:"activity,omitempty"`
	Text       string  `json:"text,omitempty"`
	ID         string  `json:"id,omitempty"`
	Desc       string  `json:"desc,omitempty"`
	Input      string  `json:"input,omitempty"`
	X          *int    `json:"x,omitempty"`
	Y          *int    `json:"y,omitempty"`
	Direction  string  `json:"direction,omitempty"`
	Count      int     `json:"count,omitempty"`
	Distance   float64 `json:"distance,omitempty"`
	DurationMs int     `json:"duration_ms,omitempty"`
	Code       int     `json:"code,omitempty"`
	Ms         int     `json:"ms,omitempty"`
	TimeoutMs  int     `json:"timeout_ms,omitempty"`
}

// parsedScenario is a checked scenario file.
type parsedScenario struct {
	file       scenarioFile
	steps      [][]scenario.Action
	budgets    *budget.File // inline budgets
	budgetPath string       // or a budget file
	// headroom is what -update leaves above (below, for floors) each
	// value it records (-headroom).
	headroom budget.Headroom
}

// parseScenario reads and checks a scenario file; errors name the file,
// the step and the action, and quote a bounded excerpt of the bad value.
func parseScenario(path string, b []byte) (*parsedScenario, error) {
	if d := jsondup.Find(b); d != nil {
		return nil, d.Error(path)
	}
	var f scenarioFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: bad JSON: %s", path, 1+bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")), excerpt.Text(err.Error()))
		}
		return nil, fmt.Errorf("%s: %s", path, excerpt.Text(err.Error()))
	}
	if err := metrics.ValidatePackage(f.Package); err != nil {
		return nil, fmt.Errorf("%s: package %s: %s", path, excerpt.Quote(f.Package), excerpt.Text(err.Error()))
	}
	if f.Simulated != nil {
		if _, err := scenarioWorkload(f.Simulated.Workload, filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("%s: simulated: %v", path, err)
		}
	}
	if len(f.Steps) == 0 {
		return nil, fmt.Errorf("%s: no steps", path)
	}
	if _, err := f.Trace.config(); err != nil {
		return nil, fmt.Errorf("%s: trace: %s", path, excerpt.Text(err.Error()))
	}
	p := &parsedScenario{file: f}
	seen := map[string]bool{}
	for i, st := range f.Steps {
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
		var acts []scenario.Action
		for j, a := range st.Actions {
			act, err := a.action()
			if err != nil {
				return nil, fmt.Errorf("%s: action %d %s: %v", where, j+1, excerpt.Quote(a.Action), err)
			}
			acts = append(acts, act)
		}
		p.steps = append(p.steps, acts)
	}
	if len(f.Budgets) > 0 {
		var s string
		if json.Unmarshal(f.Budgets, &s) == nil {
			if s == "" {
				return nil, fmt.Errorf("%s: budgets: empty path", path)
			}
			if !filepath.IsAbs(s) {
				// Relative to the scenario file, and never a bare name,
				// which assert would read from testdata/.
				s = filepath.Join(filepath.Dir(path), s)
				if !filepath.IsAbs(s) {
					s = "." + string(filepath.Separator) + s
				}
			}
			p.budgetPath = s
		} else {
			bf, err := inlineBudgets(path, b, f.Budgets)
			if err != nil {
				return nil, err
			}
			if err := p.checkBudgetSteps(bf); err != nil {
				return nil, err
			}
			p.budgets = bf
		}
	}
	return p, nil
}

// checkBudgetSteps refuses budgets of a step the scenario does not have:
// a misspelt step would otherwise be a budget nobody checks. The error
// names the file and line of the step's first budget.
func (p *parsedScenario) checkBudgetSteps(f *budget.File) error {
	steps := map[string]bool{}
	names := make([]string, len(p.file.Steps))
	for i, st := range p.file.Steps {
		steps[st.Name], names[i] = true, st.Name
	}
	u := f.UnknownSteps(func(step string) bool { return steps[step] })
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
	bf, err := budget.ParseBudgetFile("budgets", doc)
	if err != nil {
		first := 1 + bytes.Count(whole[:bytes.Index(whole, raw)], []byte("\n"))
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
	// The entries' lines count in the wrapped document, whose first line
	// is the scenario's line of "budgets".
	first := 1 + bytes.Count(whole[:bytes.Index(whole, raw)], []byte("\n"))
	for _, steps := range append([]map[string]map[string]*budget.Entry{bf.Steps}, modelSteps(bf)...) {
		for _, es := range steps {
			for _, e := range es {
				e.Line += first - 1
			}
		}
	}
	return bf, nil
}

// modelSteps are the budgets of every model of f.
func modelSteps(f *budget.File) []map[string]map[string]*budget.Entry {
	var out []map[string]map[string]*budget.Entry
	for _, m := range f.Models {
		out = append(out, m.Steps)
	}
	return out
}

// selector is the action's element selector.
func (a actionSpec) selector() (scenario.Selector, error) {
	n := 0
	var sel scenario.Selector
	if a.Text != "" {
		n, sel = n+1, scenario.Text(a.Text)
	}
	if a.ID != "" {
		n, sel = n+1, scenario.ID(a.ID)
	}
	if a.Desc != "" {
		n, sel = n+1, scenario.Desc(a.Desc)
	}
	if n != 1 {
		return sel, errors.New("give exactly one of text, id, desc")
	}
	return sel, nil
}

// maxMs bounds every time a scenario file gives in milliseconds: a sleep
// (scenario.MaxSleep), a wait, a swipe's duration.
const maxMs = int(scenario.MaxSleep / time.Millisecond)

// maxRepeat bounds a scenario's launch iterations and swipe counts: a
// thousand is hours of a phone's time; more is a typo that would run until
// killed.
const maxRepeat = 1000

func (a actionSpec) action() (scenario.Action, error) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	for _, f := range []struct {
		name string
		v    int
		ms   bool
	}{{"iterations", a.Iterations, false}, {"count", a.Count, false}, {"duration_ms", a.DurationMs, true}, {"ms", a.Ms, true}, {"timeout_ms", a.TimeoutMs, true}, {"fully_drawn_ms", a.FullyDrawn, true}} {
		if f.v < 0 {
			return nil, fmt.Errorf("%s %d is negative", f.name, f.v)
		}
		if f.ms && f.v > maxMs {
			return nil, fmt.Errorf("%s %d is over the maximum %d (%v)", f.name, f.v, maxMs, scenario.MaxSleep)
		}
		if !f.ms && f.v > maxRepeat {
			return nil, fmt.Errorf("%s %d is over the maximum %d", f.name, f.v, maxRepeat)
		}
	}
	switch a.Action {
	case "launch":
		kind := scenario.StartKind(a.Kind)
		switch kind {
		case "":
			kind = scenario.Cold
		case scenario.Cold, scenario.Warm, scenario.Hot:
		default:
			return nil, fmt.Errorf("kind %s: want cold, warm or hot", excerpt.Quote(a.Kind))
		}
		n := max(a.Iterations, 1)
		return scenario.LaunchWith(kind, n, scenario.StartupOptions{Activity: a.Activity, FullyDrawn: ms(a.FullyDrawn)}), nil
	case "tap":
		sel, err := a.selector()
		if err != nil {
			return nil, err
		}
		return scenario.Tap(sel), nil
	case "tap_at":
		if a.X == nil || a.Y == nil || *a.X < 0 || *a.Y < 0 {
			return nil, errors.New("needs x and y, both ≥ 0")
		}
		return scenario.TapAt(*a.X, *a.Y), nil
	case "swipe", "fling":
		switch scenario.Direction(a.Direction) {
		case scenario.Up, scenario.Down, scenario.Left, scenario.Right:
		default:
			return nil, fmt.Errorf("direction %s: want up, down, left or right", excerpt.Quote(a.Direction))
		}
		if a.Distance < 0 || a.Distance > 0.9 {
			return nil, fmt.Errorf("distance %v: want a fraction of the screen in (0, 0.9]", a.Distance)
		}
		if a.Action == "fling" {
			return scenario.FlingWith(scenario.SwipeOptions{Direction: scenario.Direction(a.Direction), Distance: a.Distance, Count: a.Count}), nil
		}
		return scenario.SwipeWith(scenario.SwipeOptions{Direction: scenario.Direction(a.Direction), Count: a.Count, Distance: a.Distance, Duration: ms(a.DurationMs)}), nil
	case "back":
		return scenario.Back(), nil
	case "home":
		return scenario.Home(), nil
	case "key":
		if a.Code <= 0 {
			return nil, fmt.Errorf("code %d: want an Android KeyEvent code", a.Code)
		}
		return scenario.Key(a.Code), nil
	case "type":
		sel, err := a.selector()
		if err != nil {
			return nil, err
		}
		return scenario.Type(sel, a.Input), nil
	case "wait":
		sel, err := a.selector()
		if err != nil {
			return nil, err
		}
		return scenario.WaitFor(sel, ms(a.TimeoutMs)), nil
	case "sleep":
		if a.Ms <= 0 {
			return nil, errors.New("needs ms > 0")
		}
		return scenario.Sleep(ms(a.Ms)), nil
	}
	return nil, errors.New("unknown action (want launch, tap, tap_at, swipe, fling, back, home, key, type, wait, sleep)")
}

// scenarioWorkload is a preset name or a workload JSON file relative to
// the scenario file's folder.
func scenarioWorkload(name, dir string) (*simdevice.Workload, error) {
	if name == "" {
		name = "smooth-scroll"
	}
	if wl, err := simdevice.Preset(name); err == nil {
		return wl, nil
	}
	if !strings.HasSuffix(name, ".json") {
		return nil, fmt.Errorf("workload %s: no such preset (have %s) and not a .json file", excerpt.Quote(name), strings.Join(simdevice.PresetNames(), ", "))
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return simdevice.LoadWorkload(name)
}

// runScenario is `perfgate run`; SIGINT, SIGTERM and SIGHUP stop it early
// (see scenarioRun).
func runScenario(args []string, stdout, stderr io.Writer) error {
	sigs, stop := notifyStop()
	defer stop()
	return scenarioRun(sigs, args, stdout, stderr)
}

// scenarioRun runs a scenario file until its end or the first signal from
// sigs. A signal ends the step in progress as unfinished, skips the rest,
// writes the Result of what was measured and exits with the signal's
// status; budgets are then neither checked nor rewritten, since a cut run
// would break them or record from half a step.
func scenarioRun(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage); fs.PrintDefaults() }
	serial := fs.String("serial", "", "device serial (default $ANDROID_SERIAL, else the only device); ignored with \"simulated\"")
	server := fs.String("adb", "", "adb server host:port (default $ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)")
	update := fs.Bool("update", false, "rewrite the budget file from this run")
	headroom := fs.Float64("headroom", 10, "with -update: percent a recorded budget leaves above (below, for floors such as fps) the measured value, 1 to 500")
	var pf poolFlags
	pf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}

	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("run: want one scenario file, got %d arguments", fs.NArg())
	}
	path := fs.Arg(0)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	sc, err := parseScenario(path, b)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if *headroom < 1 || *headroom > 500 {
		return fmt.Errorf("run: -headroom %g: want a percentage from 1 to 500", *headroom)
	}
	sc.headroom = budget.Headroom{Pct: *headroom}
	if *update && sc.budgetPath == "" {
		return fmt.Errorf("run: -update needs \"budgets\" to name a budget file in %s", path)
	}
	// A budget file's steps must be the scenario's before anything is
	// measured: a misspelt step would be a budget nobody checks.
	var budgets *budget.File
	switch {
	case sc.budgets != nil:
		budgets = sc.budgets
	case sc.budgetPath != "" && !*update:
		f, err := budget.ReadBudgetFile(sc.budgetPath)
		if errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("run: budget file %s does not exist: run 'perfgate run -update %s' to record it", sc.budgetPath, path)
		}
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		if err := sc.checkBudgetSteps(f); err != nil {
			return fmt.Errorf("run: %w", err)
		}
		budgets = f
	}
	if pf.on() {
		return runOnPool(sigs, fs, pf, path, sc, stdout)
	}

	stopCtx, stopWatch := watchStop(sigs)
	defer stopWatch()
	interrupted := func(where string) error {
		sig, _ := caught(stopCtx)
		return exitError{code: sig.exitCode(), err: fmt.Errorf("run: %v %s", sig, where)}
	}
	openFailed := func(err error) error {
		if _, ok := caught(stopCtx); ok {
			return interrupted("before the device was open; nothing measured")
		}
		return fmt.Errorf("run: %w", err)
	}
	ctx, cancel := context.WithTimeout(stopCtx, 30*time.Second)
	defer cancel()
	var dev *adbx.Device
	if s := sc.file.Simulated; s != nil {
		wl, _ := scenarioWorkload(s.Workload, filepath.Dir(path))
		wl.Package = sc.file.Package
		simCfg := simdevice.Config{Workload: wl, API: s.API}
		if s.Noise != nil {
			simCfg.Noise = *s.Noise
		}
		sim, err := simdevice.New(simCfg)
		if err != nil {
			return fmt.Errorf("run: simulated device: %w", err)
		}
		defer sim.Close()
		srv := adbtest.NewServer(sim)
		defer srv.Close()
		if dev, err = adbx.Open(ctx, adbx.Options{Server: srv.Addr}); err != nil {
			return openFailed(err)
		}
		fmt.Fprintf(stdout, "device: simulated %s, API %d, workload %s\n", sim.Serial(), sim.Config().API, wl.Name)
	} else {
		if dev, err = adbx.Open(ctx, adbx.Options{Serial: *serial, Server: *server}); err != nil {
			return openFailed(err)
		}
		fmt.Fprintf(stdout, "device: %s\n", dev.Serial())
	}

	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	// The Results' folder is the scenario's, as its budget file's is:
	// relative to the scenario file, not to wherever perfgate runs.
	results := sc.file.Results
	if results == "" {
		results = "perf-results"
	}
	if !filepath.IsAbs(results) {
		results = filepath.Join(filepath.Dir(path), results)
	}
	cfg := perftest.Config{Name: name, ResultsDir: results}
	if tc, _ := sc.file.Trace.config(); tc != nil {
		perftest.WithTrace(*tc)(&cfg)
	}
	var expect []string
	for _, st := range sc.file.Steps {
		if st.ExpectCrash {
			expect = append(expect, st.Name)
		}
	}
	perftest.ExpectCrash(expect...)(&cfg)
	s, err := scenario.New(ctx, dev, sc.file.Package, cfg)
	if err != nil {
		return openFailed(err)
	}
	for i, st := range sc.file.Steps {
		if stopCtx.Err() != nil {
			break
		}
		// The line goes out once the step is open, so a signal after it
		// always lands inside the step.
		begun := scenario.Func("begin", func(context.Context, *scenario.Driver) error {
			fmt.Fprintf(stderr, "run: step %d of %d: %s\n", i+1, len(sc.file.Steps), st.Name)
			return nil
		})
		s.StepContext(stopCtx, st.Name, append([]scenario.Action{begun}, sc.steps[i]...)...)
	}
	r := s.Stop()
	sess := s.Session()
	failedStep := map[string]bool{}
	for _, v := range r.Verdicts {
		if v.Kind == budget.KindAction {
			failedStep[v.Step] = true
		}
	}
	for _, st := range r.Steps {
		fmt.Fprintln(stdout, stepLine(st, failedStep[st.Name]))
	}
	printHealth(stdout, r)
	if _, ok := caught(stopCtx); ok {
		// A cut run would break its budgets or record from half a step:
		// neither checked nor rewritten.
		werr := sess.Publish()
		printResultPath(stdout, r)
		for _, e := range s.Errors() {
			fmt.Fprintln(stdout, e)
		}
		if werr != nil {
			fmt.Fprintln(stdout, werr)
		}
		done := 0
		for _, st := range r.Steps {
			if !st.Unfinished {
				done++
			}
		}
		return interrupted(fmt.Sprintf("after %d of %d steps; budgets not checked", done, len(sc.file.Steps)))
	}
	var notes []string
	switch {
	case *update:
		u, err := budget.RecordBudgets(r, sc.budgetPath, sc.headroom, budget.PolicyFromEnv())
		if err != nil {
			r.RecordVerdicts(budget.Verdict{Kind: budget.KindUpdate, Status: budget.Fail, From: sc.budgetPath, Reason: err.Error(), Line: err.Error()})
		}
		notes = u.Notes
		r.RecordVerdicts(u.Refused...)
	case budgets != nil:
		vs, n := budget.CheckFile(r, budgets)
		notes = n
		r.RecordVerdicts(vs...)
	}
	werr := sess.Publish()
	printResultPath(stdout, r)
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	// Every failing verdict of the run, as the Result keeps it: crashes no
	// step expected, failed actions, broken budgets, refused updates.
	counts := map[budget.Kind]int{}
	for _, v := range r.Verdicts {
		if !v.Fails() {
			continue
		}
		counts[v.Kind]++
		line := v.Line
		if v.Kind == budget.KindCrash {
			line += `; "expect_crash": true in the step if the scenario expects it`
		}
		fmt.Fprintln(stdout, line)
	}
	if werr != nil {
		fmt.Fprintln(stdout, werr)
	}
	if counts[budget.KindBudget] > 0 && sc.budgetPath != "" {
		fmt.Fprintf(stdout, "run 'perfgate run -update %s' to rewrite %s if the change is intended\n", path, sc.budgetPath)
	}
	if len(counts) > 0 || r.Error != "" || werr != nil {
		msg := fmt.Sprintf("run: %d failed steps, %d broken budgets", counts[budget.KindAction], counts[budget.KindBudget])
		if n := counts[budget.KindCrash]; n > 0 {
			msg += fmt.Sprintf(", %d steps crashed", n)
		}
		if n := counts[budget.KindUpdate]; n > 0 {
			msg += fmt.Sprintf(", %d updates refused", n)
		}
		if r.Error != "" {
			msg += ", session ended early: " + r.Error
		}
		if werr != nil {
			msg += ", results not written"
		}
		return exitError{code: 1, err: errors.New(msg)}
	}
	return nil
}

// printResultPath says where the Result went.
func printResultPath(stdout io.Writer, r *perftest.Result) {
	if r.Path != "" {
		fmt.Fprintf(stdout, "result: %s\n", r.Path)
	} else {
		fmt.Fprintln(stdout, "result: not written")
	}
}

// stepLine is a step's one-line summary.
func stepLine(st *perftest.Step, failed bool) string {
	var b strings.Builder
	mark, cut := "ok  ", ""
	if failed || st.Crashed() && !st.CrashExpected {
		mark = "FAIL"
	}
	if st.Unfinished {
		mark, cut = "STOP", ", unfinished"
	}
	fmt.Fprintf(&b, "%s %s (%v%s):", mark, st.Name, st.Duration().Round(time.Millisecond), cut)
	if su := st.Startup; su != nil {
		fmt.Fprintf(&b, " %s start %.0f ms (median of %d)", su.Kind, su.InitialDisplayMs, len(su.Iterations))
		if su.FullDisplayMs > 0 {
			fmt.Fprintf(&b, ", fully drawn %.0f ms", su.FullDisplayMs)
		}
		b.WriteString(";")
	}
	f := stepFigures(st)
	fmt.Fprintf(&b, " %s; %s;", strings.Join(f.parts[:3], ", "), strings.Join(f.parts[3:], "; "))
	if st.Crashed() {
		expected := ""
		if st.CrashExpected {
			expected = " (expected)"
		}
		fmt.Fprintf(&b, " CRASHED %d times%s", len(st.Crashes), expected)
		for i, c := range st.Crashes {
			sep := " ("
			if i > 0 {
				sep = ", "
			}
			b.WriteString(sep + c.Reason)
			if c.Cause != "" {
				b.WriteString(" " + c.Cause)
			}
		}
		b.WriteString(");")
	}
	if t := st.Ticks; t.Late > 0 {
		fmt.Fprintf(&b, " %d of %d ticks late (spacing max %.0fms);", t.Late, t.Ticks, t.MaxSpacingMs)
	}
	if why := f.why(); why != "" {
		fmt.Fprintf(&b, " %s;", why)
	}
	return strings.TrimSuffix(b.String(), ";")
}
