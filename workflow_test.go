package perfgate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/simdevice"
)

// The gate in an app's repository, end to end: a throw-away Android app
// repository (its "APK" a simulated workload, its perf test a Go test on
// the simulated phone) runs the steps of examples/ci/perf.yml as GitHub
// Actions would, through the actions' own action.yml files and scripts:
// actions/setup, the perf tests (actions/scripts/run-tests, what the
// emulator script ends in), actions/gate. Pushes to main fill the
// performance history; then a pull request that makes the feed janky must
// fail the gate with its regression and budget lines, and a pull request
// that changes nothing of the app must pass it.
func TestWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an app repository and runs its perf gate, about a minute; not with -short")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: the test runs the actions' bash scripts in a git repository (%v)", tool, err)
		}
	}
	start := time.Now()
	gh := newAppRepo(t)

	// Two pushes to main: the first finds no history, and gives it five
	// runs (go test -count=5, each session a run); the second is compared
	// with those five before its own run is added.
	push1 := gh.run(t, workflowRun{event: "push", branch: "main", seed: 1, repeat: "5"})
	push1.wantTests(t, 0)
	push1.wantGate(t, 0)
	push1.wantGateSays(t, "nothing to compare with")
	push1.wantFile(t, "perf-out/history-add.txt", "5 of 5 runs added")
	push1.wantSummary(t, "perfgate gate: passed")
	push1.wantSetupSays(t, "installing the perfgate that "+gh.dir+"/go.mod requires")
	push1.wantSetupSays(t, "=> "+gh.root)

	push2 := gh.run(t, workflowRun{event: "push", branch: "main", seed: 2, repeat: "1", change: map[string]string{"README.md": "# feedapp\n\nThe feed.\n"}})
	push2.wantTests(t, 0)
	push2.wantGate(t, 0)
	push2.wantGateSays(t, "5 base runs")
	push2.wantSummary(t, "perfgate gate: passed")

	// The janky pull request: every tenth frame of the scroll takes three
	// vsyncs, about 5 janky frames per scroll where main had none.
	janky := gh.workload(t, func(w *simdevice.Workload) {
		w.Phases[0].Janks = []simdevice.Jank{{Every: 10, Vsyncs: 3}}
	})
	pr1 := gh.run(t, workflowRun{event: "pull_request", branch: "janky-feed", base: "main", pr: 7, seed: 3, repeat: "1",
		change: map[string]string{"app/feed.workload.json": janky}})
	pr1.wantTests(t, 1)
	pr1.wantGate(t, 1)
	// Both lines are in the session's own part of the report: the gate's
	// comparison verdicts are kept in the Result (compare -write) before
	// perfgate report shows it.
	regression := pr1.wantReportLine(t, `perf regression: TestFeedScroll\S* .*scroll: jank 0 → [3-9]`)
	budget := pr1.wantReportLine(t, `perf budget exceeded: scroll: jank [3-9] > 2`)
	pr1.wantSummary(t, "### ❌ TestFeedScroll")
	pr1.wantSummary(t, "perfgate gate: failed")
	pr1.wantSummary(t, "[HTML report](https://github.com/example/feedapp/actions/runs/")
	pr1.wantSummary(t, "artifact `perf-emulator`")
	pr1.wantGateSays(t, "pr-comment: not posted")
	comment := pr1.wantFile(t, "perf-out/comment.md", "<!-- perfgate:emulator -->")
	for _, line := range []string{regression, budget} {
		if !strings.Contains(comment, line) {
			t.Errorf("janky pull request: the comment lacks %q:\n%s", line, comment)
		}
	}
	// The run measured the pull request's head, not GitHub's merge commit.
	pr1.wantFile(t, "perf-out/history-add.txt", "commit "+pr1.sha)
	pr1.wantFile(t, "perf-out/all.html", "<html")
	gateLine := lastLine(pr1.gate.out)

	// A pull request that leaves the app alone.
	pr2 := gh.run(t, workflowRun{event: "pull_request", branch: "readme-edit", base: "main", pr: 8, seed: 4, repeat: "1",
		change: map[string]string{"README.md": "# feedapp\n\nThe feed, scrolled.\n"}})
	pr2.wantTests(t, 0)
	pr2.wantGate(t, 0)
	pr2.wantSummary(t, "✅ all budgets met")
	pr2.wantSummary(t, "perfgate gate: passed")
	// Main's 6 runs, not the janky pull request's: its runs joined the
	// history under its own branch.
	pr2.wantGateSays(t, "6 base runs")
	pr2.wantFile(t, "perf-out/comment.md", "<!-- perfgate:emulator -->")

	t.Logf("base runs: 6 (5 + 1 pushes to main); the janky pull request's gate: %s\n  %s\n  %s", gateLine, regression, budget)
	t.Logf("took %v", time.Since(start).Round(time.Second))
}

// appRepo is the throw-away app repository, with what stands in for the
// GitHub runner around it.
type appRepo struct {
	root   string   // this checkout, the perfgate the app requires
	dir    string   // the repository: the job's workspace
	runner string   // RUNNER_TEMP, kept from run to run as the Actions cache keeps the history
	env    []string // the runner's environment
	runs   int      // workflow runs so far, for GITHUB_RUN_ID
}

// The app's perf test, as the README's "Use it in CI" has an app write one,
// with the simulated phone in place of the emulator: it serves the app's
// workload (this repository's stand-in for an APK) with noise on, a new
// phone each run; scenario drives it; the budget file gates it.
const feedTest = `// Package perf holds the feed app's performance tests.
package perf

import (
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// runs numbers the runs of one go test -count=N, so that each gets noise
// of its own.
var runs atomic.Int64

// TestMain has every session write its reports into $PERFGATE_REPORT. It
// does not join $PERFGATE_HISTORY: the gate adds the runs, after comparing.
func TestMain(m *testing.M) {
	perftest.UseReporters(report.Reporter)
	os.Exit(m.Run())
}

func TestFeedScroll(t *testing.T) {
	wl, err := simdevice.LoadWorkload("../app/feed.workload.json")
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := strconv.ParseInt(os.Getenv("FEEDAPP_SEED"), 10, 64)
	sim, err := simdevice.New(simdevice.Config{Workload: wl,
		Noise: simdevice.Noise{Seed: seed*1000 + runs.Add(1), FramePct: 3, RunPct: 3}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	srv := adbtest.NewServer(sim)
	t.Cleanup(srv.Close)

	sc := scenario.Start(t, srv.Open(""), wl.Package)
	sc.Step("launch", scenario.Launch(scenario.Cold))
	sc.Step("scroll", scenario.Swipe(scenario.Up, 5))
	assert.Budget(t, sc.Stop(), "feed.budget.json")
}
`

const feedBudgets = `{
  "schema": "perfgate.budget/v1",
  "steps": {
    "launch": {
      "startup_initial": { "max": 1000, "unit": "ms" },
      "crashes": { "max": 0, "unit": "crashes" }
    },
    "scroll": {
      "jank": { "max": 2, "unit": "frames" },
      "frame_time_p95": { "max": 12, "unit": "ms" },
      "crashes": { "max": 0, "unit": "crashes" }
    }
  }
}
`

// newAppRepo makes the app repository: a Go module requiring perfgate
// through a replace directive to this checkout (with this module's
// requirements and go.sum, so that it builds offline), the smooth-scroll
// preset as the app, the perf test and its budgets, committed on main.
func newAppRepo(t *testing.T) *appRepo {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	gh := &appRepo{root: abs, dir: filepath.Join(tmp, "feedapp"), runner: filepath.Join(tmp, "runner")}
	for _, d := range []string{gh.dir, gh.runner} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The runner's environment: none of perfgate's, GitHub's or the
	// developer's variables that would steer the scripts. The app's go.mod
	// and go.sum list every module perfgate needs, so with the module cache
	// this checkout's build filled, go fetches nothing (-mod=mod lets it
	// fill the gaps of a colder cache through the environment's proxy).
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "PERFGATE_"), strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "RUNNER_"),
			strings.HasPrefix(k, "ANDROID_"), strings.HasPrefix(k, "ADB_"), strings.HasPrefix(k, "GIT_"),
			k == "GH_TOKEN", k == "GOFLAGS", k == "GOWORK", k == "GOTOOLCHAIN", k == "CI":
			continue
		}
		gh.env = append(gh.env, kv)
	}
	gh.env = append(gh.env, "CI=true", "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off", "GOTOOLCHAIN=local",
		// git as a fresh runner has it: no signing or hooks of a
		// developer's own configuration.
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=feedapp", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=feedapp", "GIT_COMMITTER_EMAIL=dev@example.com")

	out, err := exec.Command("go", "mod", "edit", "-json", filepath.Join(abs, "go.mod")).Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var mod struct {
		Go      string
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module example.com/feedapp\n\ngo %s\n\nrequire github.com/perfgate/perfgate v0.0.0\n\nrequire (\n", mod.Go)
	for _, r := range mod.Require {
		fmt.Fprintf(&gomod, "\t%s %s // indirect\n", r.Path, r.Version)
	}
	fmt.Fprintf(&gomod, ")\n\nreplace github.com/perfgate/perfgate => %s\n", abs)
	sum, err := os.ReadFile(filepath.Join(abs, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":                         gomod.String(),
		"go.sum":                         string(sum),
		"README.md":                      "# feedapp\n",
		".gitignore":                     "perf-out/\n",
		"app/feed.workload.json":         gh.workload(t, func(*simdevice.Workload) {}),
		"perf/feed_test.go":              feedTest,
		"perf/testdata/feed.budget.json": feedBudgets,
	}
	gh.write(t, files)
	gh.git(t, "init", "-q", "-b", "main")
	gh.git(t, "add", "-A")
	gh.git(t, "commit", "-q", "-m", "the feed app")
	return gh
}

// workload is the app: the smooth-scroll preset as JSON, as edit changes it.
func (gh *appRepo) workload(t *testing.T, edit func(*simdevice.Workload)) string {
	t.Helper()
	w, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	edit(w)
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func (gh *appRepo) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(gh.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// git runs git in the repository and returns its output.
func (gh *appRepo) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = gh.dir, gh.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// workflowRun is one run of the workflow: a push to branch, or a pull
// request from branch into base, whose commit makes change to the files
// (a push of no change runs main as it is).
type workflowRun struct {
	event        string // push or pull_request
	branch, base string
	pr           int
	change       map[string]string
	seed         int    // the simulated phone's noise, as another runner's phone would differ
	repeat       string // actions/setup's repeat input
}

// ranStep is how a step ended.
type ranStep struct {
	out  string
	code int
}

// ranRun is what one workflow run printed and wrote.
type ranRun struct {
	workflowRun
	dir                string // the workspace
	sha                string
	setup, tests, gate ranStep
	summary            string // $GITHUB_STEP_SUMMARY
}

// run runs the workflow's steps for one event: checkout, actions/setup,
// the perf tests, actions/gate, each with the environment GitHub gives it
// and the variables the steps before exported through $GITHUB_ENV and
// $GITHUB_PATH.
func (gh *appRepo) run(t *testing.T, w workflowRun) *ranRun {
	t.Helper()
	gh.runs++
	label := fmt.Sprintf("%s %s", w.event, w.branch)
	if w.branch != "main" {
		gh.git(t, "checkout", "-q", "-B", w.branch, "main")
	} else {
		gh.git(t, "checkout", "-q", "main")
	}
	if len(w.change) > 0 {
		gh.write(t, w.change)
		gh.git(t, "commit", "-q", "-am", "change for "+label)
	}
	r := &ranRun{workflowRun: w, dir: gh.dir, sha: gh.git(t, "rev-parse", "HEAD")}
	job := filepath.Join(gh.runner, fmt.Sprintf("_job%d", gh.runs))
	if err := os.MkdirAll(job, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		files[f] = filepath.Join(job, strings.ToLower(f))
		if err := os.WriteFile(files[f], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	github := map[string]string{
		"event_name": w.event, "sha": r.sha, "ref_name": w.branch, "job": "perf", "action_ref": "",
		"run_id": fmt.Sprint(1000 + gh.runs), "run_attempt": "1", "token": "",
		"repository": "example/feedapp", "server_url": "https://github.com", "workspace": gh.dir,
		"event.repository.default_branch": "main",
	}
	if w.event == "pull_request" {
		// GitHub builds the merge commit; what the run measures is the
		// pull request's head.
		github["sha"] = strings.Repeat("f", 40)
		github["ref_name"] = fmt.Sprintf("%d/merge", w.pr)
		github["head_ref"], github["base_ref"] = w.branch, w.base
		github["event.pull_request.number"] = fmt.Sprint(w.pr)
		github["event.pull_request.head.sha"] = r.sha
	}
	env := append([]string(nil), gh.env...)
	for k, v := range map[string]string{
		"GITHUB_WORKSPACE": gh.dir, "GITHUB_EVENT_NAME": w.event, "GITHUB_SHA": github["sha"],
		"GITHUB_REF_NAME": github["ref_name"], "GITHUB_HEAD_REF": github["head_ref"], "GITHUB_BASE_REF": github["base_ref"],
		"GITHUB_JOB": github["job"], "GITHUB_RUN_ID": github["run_id"], "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_REPOSITORY": github["repository"], "GITHUB_SERVER_URL": github["server_url"],
		"GITHUB_ENV": files["GITHUB_ENV"], "GITHUB_PATH": files["GITHUB_PATH"], "GITHUB_STEP_SUMMARY": files["GITHUB_STEP_SUMMARY"],
		"RUNNER_TEMP": gh.runner, "GITHUB_ACTIONS": "true",
	} {
		env = append(env, k+"="+v)
	}
	ctx := exprContext{github: github, runner: map[string]string{"temp": gh.runner}}

	// The steps of examples/ci/perf.yml, the inputs' defaults standing for
	// its working-directory and test (this module is the repository's
	// root), run-tests (the emulator script's last step) for its emulator
	// step.
	inputs := map[string]string{"name": "emulator", "repeat": w.repeat}
	r.setup = gh.action(t, label, "actions/setup", inputs, ctx, env, files)
	if r.setup.code != 0 {
		t.Fatalf("%s: actions/setup exited %d:\n%s", label, r.setup.code, r.setup.out)
	}
	r.tests = gh.step(t, label, `"$PERFGATE_CI_SCRIPTS/run-tests"`, append(withExports(t, env, files), fmt.Sprintf("FEEDAPP_SEED=%d", w.seed)))
	r.gate = gh.action(t, label, "actions/gate", map[string]string{}, ctx, env, files)
	b, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	r.summary = string(b)
	return r
}

// action runs the run: steps of a composite action as GitHub would: its
// inputs with their defaults, each step's env: evaluated, ${{ }} in run:
// replaced. Its uses: steps (the Actions cache, the artifact upload) are
// GitHub's own and are left out.
func (gh *appRepo) action(t *testing.T, label, dir string, inputs map[string]string, ctx exprContext, env []string, files map[string]string) ranStep {
	t.Helper()
	a := readAction(t, filepath.Join(gh.root, dir, "action.yml"))
	ctx.inputs = map[string]string{}
	for k, v := range a.defaults {
		ctx.inputs[k] = ctx.eval(t, v)
	}
	for k, v := range inputs {
		if _, ok := a.defaults[k]; !ok {
			t.Fatalf("%s has no input %q", dir, k)
		}
		ctx.inputs[k] = v
	}
	ctx.github["action_path"] = filepath.Join(gh.root, dir)
	var all ranStep
	for _, s := range a.steps {
		if s.run == "" {
			continue
		}
		// A step sees the variables the steps before it exported.
		stepEnv := withExports(t, env, files)
		ctx.env = envMap(stepEnv)
		for _, kv := range s.env {
			stepEnv = append(stepEnv, kv[0]+"="+ctx.eval(t, kv[1]))
		}
		stepEnv = append(stepEnv, "GITHUB_ACTION_PATH="+ctx.github["action_path"])
		res := gh.step(t, label, ctx.eval(t, s.run), stepEnv)
		all.out += res.out
		if res.code != 0 && all.code == 0 {
			all.code = res.code
		}
	}
	return all
}

// step runs one run: script in the workspace.
func (gh *appRepo) step(t *testing.T, label, script string, env []string) ranStep {
	t.Helper()
	start := time.Now()
	out, code, err := runShell(gh.dir, env, "set -e\n"+script)
	if err != nil {
		t.Fatalf("%s: bash -c %q: %v", label, script, err)
	}
	t.Logf("%s: %s: exit %d in %v", label, firstLine(script), code, time.Since(start).Round(time.Millisecond))
	return ranStep{out, code}
}

// withExports adds to env what the steps so far wrote to $GITHUB_ENV
// (NAME=value lines) and $GITHUB_PATH (folders put before PATH).
func withExports(t *testing.T, env []string, files map[string]string) []string {
	t.Helper()
	out := append([]string(nil), env...)
	b, err := os.ReadFile(files["GITHUB_ENV"])
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		if !strings.Contains(l, "=") || strings.Contains(l, "<<") {
			t.Fatalf("$GITHUB_ENV line %q: want NAME=value", l)
		}
		out = append(out, l)
	}
	b, err = os.ReadFile(files["GITHUB_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	path := envMap(out)["PATH"]
	for _, d := range strings.Fields(string(b)) {
		path = d + string(os.PathListSeparator) + path
	}
	return append(out, "PATH="+path)
}

// envMap is env as a map, the last value of a name winning as in exec.
func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// compositeAction is what the test reads of an action.yml: its inputs'
// defaults, and its steps' env: and run:.
type compositeAction struct {
	defaults map[string]string
	steps    []actionStep
}

type actionStep struct {
	env [][2]string // in file order
	run string
}

// readAction reads an action.yml of this repository. It knows the subset
// of YAML those files are written in: block mappings, "- " step items,
// one-line scalars (plain, or quoted in ' or "). Anything else fails the
// test, naming the line.
func readAction(t *testing.T, path string) compositeAction {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := compositeAction{defaults: map[string]string{}}
	var section, input, stepKey string
	var cur *actionStep
	keyVal := regexp.MustCompile(`^( *)(- )?([A-Za-z0-9_-]+):(?: (.*))?$`)
	for i, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		m := keyVal.FindStringSubmatch(l)
		if m == nil {
			if section == "steps" && (stepKey == "restore-keys" || stepKey == "with") {
				continue // a uses: step's block scalar
			}
			t.Fatalf("%s:%d: the test cannot read %q", path, i+1, l)
		}
		indent, item, key, val := len(m[1]), m[2] != "", m[3], unquoteYAML(t, path, i+1, m[4])
		switch {
		case indent == 0:
			section = key
		case section == "inputs" && indent == 2:
			input = key
			a.defaults[input] = ""
		case section == "inputs" && indent == 4 && key == "default":
			a.defaults[input] = val
		case section == "runs" && indent == 2 && key == "steps":
			section = "steps"
		case section == "steps" && item:
			a.steps = append(a.steps, actionStep{})
			cur = &a.steps[len(a.steps)-1]
			stepKey = key
			fallthrough
		case section == "steps" && indent == 6:
			stepKey = key
			if key == "run" {
				cur.run = val
			}
		case section == "steps" && indent == 8 && stepKey == "env":
			cur.env = append(cur.env, [2]string{key, val})
		}
	}
	return a
}

// unquoteYAML reads a one-line YAML scalar.
func unquoteYAML(t *testing.T, path string, line int, s string) string {
	t.Helper()
	s = strings.TrimSpace(s)
	switch {
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		var v string
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s:%d: %s: %v", path, line, s, err)
		}
		return v
	case strings.HasPrefix(s, "|") || strings.HasPrefix(s, ">"):
		return "" // a block scalar, which only uses: steps have here
	}
	return s
}

// exprContext is what ${{ }} expressions read.
type exprContext struct {
	github, runner, inputs, env map[string]string
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// eval replaces each ${{ a || b || … }} in s, where each operand is a
// context value (github.…, runner.…, inputs.…, env.…) or a '…' string, and
// the first non-empty one wins.
func (c exprContext) eval(t *testing.T, s string) string {
	t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(e string) string {
		for _, term := range strings.Split(exprRE.FindStringSubmatch(e)[1], "||") {
			term = strings.TrimSpace(term)
			var v string
			switch ctx, name, _ := strings.Cut(term, "."); {
			case strings.HasPrefix(term, "'"):
				v = strings.Trim(term, "'")
			case ctx == "github":
				v = c.github[name]
			case ctx == "runner":
				v = c.runner[name]
			case ctx == "inputs":
				var ok bool
				if v, ok = c.inputs[name]; !ok {
					t.Fatalf("expression %s: no input %q", e, name)
				}
			case ctx == "env":
				v = c.env[name]
			default:
				t.Fatalf("expression %s: the test does not know %q", e, term)
			}
			if v != "" {
				return v
			}
		}
		return ""
	})
}

func (r *ranRun) label() string { return r.event + " " + r.branch }

func (r *ranRun) wantTests(t *testing.T, code int) {
	t.Helper()
	if (r.tests.code == 0) != (code == 0) {
		t.Errorf("%s: the perf tests exited %d, want %d:\n%s", r.label(), r.tests.code, code, r.tests.out)
	}
}

func (r *ranRun) wantGate(t *testing.T, code int) {
	t.Helper()
	if (r.gate.code == 0) != (code == 0) {
		t.Errorf("%s: actions/gate exited %d, want %d:\n%s\nsummary:\n%s", r.label(), r.gate.code, code, r.gate.out, r.summary)
	}
}

func (r *ranRun) wantGateSays(t *testing.T, s string) {
	t.Helper()
	if !strings.Contains(r.gate.out, s) {
		t.Errorf("%s: actions/gate does not say %q:\n%s", r.label(), s, r.gate.out)
	}
}

func (r *ranRun) wantSetupSays(t *testing.T, s string) {
	t.Helper()
	if !strings.Contains(r.setup.out, s) {
		t.Errorf("%s: actions/setup does not say %q:\n%s", r.label(), s, r.setup.out)
	}
}

func (r *ranRun) wantSummary(t *testing.T, s string) {
	t.Helper()
	if !strings.Contains(r.summary, s) {
		t.Errorf("%s: the job summary lacks %q:\n%s\n(actions/gate said:\n%s)", r.label(), s, r.summary, r.gate.out)
	}
}

// wantReportLine finds the line matching re in the report part of the
// job summary, what perfgate report wrote above the gate's own section,
// and returns it.
func (r *ranRun) wantReportLine(t *testing.T, re string) string {
	t.Helper()
	report, _, ok := strings.Cut(r.summary, "\n### Gate\n")
	if !ok {
		t.Errorf("%s: the job summary has no gate section:\n%s", r.label(), r.summary)
	}
	l := regexp.MustCompile(`(?m)^` + re + `.*$`).FindString(report)
	if l == "" {
		t.Errorf("%s: no line of the job summary's report matches %q:\n%s\n(actions/gate said:\n%s)", r.label(), re, report, r.gate.out)
	}
	return l
}

// wantFile reads a file of the workspace that must hold s.
func (r *ranRun) wantFile(t *testing.T, name, s string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		t.Errorf("%s: %v (actions/gate said:\n%s)", r.label(), err, r.gate.out)
		return ""
	}
	if !strings.Contains(string(b), s) {
		t.Errorf("%s: %s lacks %q:\n%s", r.label(), name, s, b)
	}
	return string(b)
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return ls[len(ls)-1]
}
