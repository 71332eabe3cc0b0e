// Package perfgate_test runs the README's shell commands the way a newcomer
// types them into a fresh checkout.
package perfgate_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
)

// root is the module root, where README.md is.
const root = "."

// A block is one ```sh block of the README: its commands, each one line
// or a here-document.
type block struct {
	line int // of the fence
	cmds []string
}

// blocks reads the README's ```sh blocks.
func blocks(t *testing.T, readme string) []block {
	t.Helper()
	var out []block
	var cur *block
	var here string // the end word of a here-document being read
	for i, l := range strings.Split(readme, "\n") {
		switch {
		case cur == nil && l == "```sh":
			cur = &block{line: i + 1}
		case cur == nil:
		case here != "":
			cur.cmds[len(cur.cmds)-1] += "\n" + l
			if l == here {
				here = ""
			}
		case l == "```":
			out = append(out, *cur)
			cur = nil
		case strings.TrimSpace(l) != "":
			cur.cmds = append(cur.cmds, l)
			if m := regexp.MustCompile(`<<'?(\w+)'?`).FindStringSubmatch(l); m != nil {
				here = m[1]
			}
		}
	}
	if cur != nil {
		t.Fatalf("README.md:%d: a ```sh block that never ends", cur.line)
	}
	return out
}

// notRun are the README's commands a fresh checkout cannot run, each by a
// piece of its text, with the reason. Every other command runs; a command
// here that the README no longer has fails the test, so the list cannot
// outlive the README.
var notRun = map[string]string{
	"go test -race ./...":                "the whole suite, of which this test is part (.ci/run runs it)",
	"go test ./...                  ":    "the whole suite, of which this test is part (.ci/run runs it)",
	"record -serial SERIAL":              "a placeholder serial and the reader's own app",
	"record -package com.example.feed":   "the reader's own app",
	"appium-uiautomator2-server":         "the Appium UiAutomator2 APKs",
	"io.appium.uiautomator2.server.test": "the Appium UiAutomator2 server",
}

// after are commands whose input a later command of the README makes
// (the trace is analysed before the README says how to take one by
// hand): by a piece of their text, the piece of the command they wait for.
var after = map[string]string{
	"analyze trace -package com.example": "adb pull /data/misc/perfetto-traces/trace.perfetto-trace",
	// The pull request's gate runs on the history "Performance history"
	// fills, and on the runs of "Reports and comparisons".
	"compare -history": "history budget -test TestScrollJankBudget",
}

// installCmd is the README's command that installs perfgate: the test runs
// it first, as a reader does, into a GOBIN of its own on PATH.
const installCmd = "go install ./cmd/perfgate"

// exportVar finds a command that sets a variable for the commands after it.
var exportVar = regexp.MustCompile(`^export ([A-Za-z_][A-Za-z0-9_]*)=`)

// exported runs c, an export, in dir and returns env with the variable it
// sets as bash left it, as the reader's shell keeps it for the commands
// that follow.
func exported(dir string, env []string, c string) ([]string, done) {
	name := exportVar.FindStringSubmatch(c)[1]
	r := timed(dir, env, c+"\nprintf '\\0%s' \"$"+name+"\"")
	i := strings.LastIndexByte(r.out, 0)
	if r.code != 0 || i < 0 {
		return env, r
	}
	val := r.out[i+1:]
	r.out = r.out[:i]
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	return append(env, name+"="+val), r
}

// leftBehind lists what the commands left in the checkout that git would
// show: files they wrote outside the ignored scratch folder.
func leftBehind(t *testing.T, dir string) string {
	t.Helper()
	git := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	git.Dir = dir
	out, err := git.Output()
	if err != nil {
		t.Fatalf("git status in the checkout: %v", err)
	}
	return string(out)
}

// waitFor is the command c waits for, "" when none or once it ran.
func waitFor(c string, ran map[string]bool) string {
	for k, v := range after {
		if strings.Contains(c, k) && !ran[v] {
			return v
		}
	}
	return ""
}

// together are commands that run at the same time as the README commands
// right after them that are here too, by a piece of their text: each
// writes its own folder, and the README's next command reads them all.
var together = []string{
	"PERFGATE_RESULTS=$PWD/try/base go test -count=6",
	"PERFGATE_RESULTS=$PWD/try/new go test -count=6",
}

// isTogether reports whether c is one of together's commands.
func isTogether(c string) bool {
	for _, k := range together {
		if strings.Contains(c, k) {
			return true
		}
	}
	return false
}

// background are commands that run while the README's next commands do,
// by a piece of their text, each with a piece of the later command that
// waits until it has finished ("" when only the test's end waits): no
// command in between reads or writes what it does.
var background = map[string]string{
	// The main job writes example_test/testdata/perf-results, as the
	// README's CI section's test run does again before its report.
	"go test -v -run TestScrollJankBudget ./example_test/": "go test -run TestScrollJankBudget ./example_test/",
	// Its Results go to examples/perf-results, which nothing else reads.
	"run examples/feed.json": "",
}

// backgroundUntil reports whether c runs in the background: its key in
// background, and the piece of the command that waits for it.
func backgroundUntil(c string) (key, until string, ok bool) {
	for k, v := range background {
		if strings.Contains(c, k) {
			return k, v, true
		}
	}
	return "", "", false
}

// exitStatus are the commands that fail on purpose, by a piece of their
// text; the README says so beside each.
var exitStatus = map[string]int{
	"run examples/feed.json": 1,
	"PERFGATE_SIM_WORKLOAD=janky-feed go test -run TestScrollJankBudget": 1,
}

// deviceCmd reports whether a command talks to a phone: it runs against
// the simulated one, through the stock adb server.
func deviceCmd(c string) bool {
	return strings.HasPrefix(c, "adb ") || strings.Contains(c, "| adb ") || strings.Contains(c, "perfgate layer ")
}

// Every shell command of the README, run in README order in a copy of the
// files a fresh clone has (no Results, no reports left from earlier runs),
// with the module root's go and a perfgate binary on PATH; the blocks that
// talk to a phone run in a lane of their own beside the others (see
// phoneLane). Commands that talk to a phone talk to the simulated one, its
// app renamed com.example as the README names it, through the stock adb
// server on a private port named by ANDROID_ADB_SERVER_PORT as adb itself
// reads it. A command with a trailing `&` runs as a job until the
// README's `kill %n`, the commands after it waiting for the line it prints
// once it serves (jobReady); a job still running at the end fails the
// test. The README's simulated lab joins a stock adb server of the test's
// own, on a private port. Each must exit 0, or the status the README says.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands, about two minutes; not with -short")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkExampleFiles(t, string(readme))
	bs := blocks(t, string(readme))
	dir := freshCheckout(t)
	bin := t.TempDir()

	// A newcomer's shell: none of perfgate's or adb's variables, and go
	// installs into a folder of the test's own, on PATH as the README has
	// the reader put go's.
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "PERFGATE_") && !strings.HasPrefix(k, "ANDROID_") && !strings.HasPrefix(k, "ADB_") && k != "PATH" && k != "GOBIN" {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GOBIN="+bin)
	// The README's install command runs first, while the phone starts.
	var install cmd
	for _, b := range bs {
		for _, c := range b.cmds {
			if strings.HasPrefix(c, installCmd) && install.c == "" {
				install = cmd{b.line, c}
			}
		}
	}
	if install.c == "" {
		t.Fatalf("README.md has no %q: a reader has no perfgate command", installCmd)
	}
	built := make(chan struct{}) // closed when the build has ended
	var buildRes done
	var buildErr error
	installEnv := slices.Clone(env) // env grows below while it runs
	go func() {
		buildRes = timed(dir, installEnv, install.c)
		if buildErr = buildRes.err; buildErr == nil && buildRes.code != 0 {
			buildErr = fmt.Errorf("exit status %d", buildRes.code)
		}
		close(built)
	}()
	// waitBuild waits for perfgate, which commands that run it need.
	waitBuild := func() {
		<-built
		if buildErr != nil {
			t.Fatalf("README.md:%d: %s: %v\n%s", install.line, install.c, buildErr, buildRes.out)
		}
	}
	t.Cleanup(func() { <-built })
	if fx, err := fixtures.Root(); err == nil {
		env = append(env, "PERFGATE_FIXTURES="+fx)
	}
	used := map[string]bool{}
	var queue, lane []cmd
	for _, b := range bs {
		for _, c := range b.cmds {
			queue = append(queue, cmd{b.line, c})
		}
	}
	queue, lane = phoneLane(t, queue, used)
	// The phone starts while perfgate builds.
	var laneEnv []string
	if len(lane) > 0 {
		laneEnv = append(append([]string(nil), env...), simulatedPhone(t)...)
	}
	// The README's background jobs: phones, and labs of them, that join
	// a stock adb server of their own, on a private port as the phone's
	// lane's.
	js := &jobs{t: t}
	t.Cleanup(js.stopAll)
	var jobsADB []string // the variable that names that server
	if strings.Contains(string(readme), "perfgate simdevice") {
		jobsADB = []string{fmt.Sprintf("ANDROID_ADB_SERVER_PORT=%d", adbtest.StartADB(t).Port)}
		env = append(env, jobsADB...)
	}
	ran := 0
	var held []cmd
	ranCmds := map[string]bool{} // the awaited commands that ran
	// check reports how command g ended; at says what ran beside it.
	check := func(g cmd, r done, at string) {
		if r.err != nil {
			t.Fatalf("README.md:%d: bash -c %q: %v", g.line, g.c, r.err)
		}
		want := 0
		for k, v := range exitStatus {
			if strings.Contains(g.c, k) {
				want = v
			}
		}
		t.Logf("README.md:%d: %s: exit %d in %v%s", g.line, firstLine(g.c), r.code, r.took.Round(time.Millisecond), at)
		if r.code != want {
			t.Errorf("README.md:%d: %s\nexit status %d, want %d:\n%s", g.line, g.c, r.code, want, r.out)
		}
		if strings.Contains(g.c, stepSummary) {
			checkStepSummary(t, g, env)
		}
		ran++
		for _, v := range after {
			if strings.Contains(g.c, v) {
				ranCmds[v] = true
			}
		}
	}
	// bg are the background commands still running.
	type bgCmd struct {
		cmd
		until string
		res   chan done
	}
	var bg []bgCmd
	// A failing test still waits for them before its checkout goes.
	t.Cleanup(func() {
		for _, b := range bg {
			<-b.res
		}
	})
	bgSeen := map[string]bool{}
	// waitBackground waits for the background commands that c waits for
	// (all of them when c is ""), and checks how they ended.
	waitBackground := func(c string) {
		var still []bgCmd
		for _, b := range bg {
			if c != "" && (b.until == "" || !strings.Contains(c, b.until)) {
				still = append(still, b)
				continue
			}
			check(b.cmd, <-b.res, " (in the background)")
		}
		bg = still
	}
	// The phone's lane runs beside the other commands, one command after
	// another, and is checked when they are done.
	laneDone := make(chan []done, 1)
	setUp := make(chan struct{}) // closed once the set-up block has run
	setUpDone := sync.OnceFunc(func() { close(setUp) })
	defer setUpDone()
	go func() {
		<-built
		<-setUp // the scratch folder the lane writes into
		var res []done
		for _, g := range lane {
			if buildErr != nil {
				break // the test fails on it
			}
			res = append(res, timed(dir, laneEnv, g.c))
		}
		laneDone <- res
	}()
	t.Cleanup(func() {
		if laneDone != nil {
			<-laneDone
		}
	})
	for len(queue) > 0 {
		b, c := queue[0], queue[0].c
		queue = queue[1:]
		if b.line > install.line {
			setUpDone()
		}
		if why := skipped(c, used); why != "" {
			t.Logf("README.md:%d: not run: %s: %s", b.line, c, why)
			continue
		}
		if c == install.c {
			waitBuild()
			check(b, buildRes, " (started first)")
			continue
		}
		if m := jobCmd.FindStringSubmatch(c); m != nil {
			waitBuild()
			waitBackground(c)
			js.start(dir, env, b, m[1])
			continue
		}
		if m := killJob.FindStringSubmatch(c); m != nil {
			n, _ := strconv.Atoi(m[1])
			j, r := js.kill(n)
			if j == nil {
				t.Fatalf("README.md:%d: %s: no job %%%s runs", b.line, c, m[1])
			}
			check(j.cmd, r, " (a job until "+strings.TrimSpace(strings.Split(c, "#")[0])+")")
			if jobsADB != nil {
				checkNoDevices(t, dir, cmd{b.line, strings.TrimSpace(strings.Split(c, "#")[0])}, jobsADB)
			}
			continue
		}
		if exportVar.MatchString(c) {
			var r done
			env, r = exported(dir, env, c)
			check(b, r, "")
			continue
		}
		if w := waitFor(c, ranCmds); w != "" {
			// Its input comes from a later command of the README.
			held = append(held, b)
			continue
		}
		if usesPerfgate(c) {
			waitBuild()
		}
		if key, until, ok := backgroundUntil(c); ok {
			bgSeen[key] = true
			res := make(chan done, 1)
			e := env // the exports so far; later ones may replace env
			go func() { res <- timed(dir, e, c) }()
			bg = append(bg, bgCmd{b, until, res})
			continue
		}
		group := []cmd{b}
		for isTogether(c) && len(queue) > 0 && isTogether(queue[0].c) && skipped(queue[0].c, used) == "" && waitFor(queue[0].c, ranCmds) == "" {
			group, queue = append(group, queue[0]), queue[1:]
		}
		results := make([]done, len(group))
		var wg sync.WaitGroup
		for i, g := range group {
			if usesPerfgate(g.c) {
				waitBuild()
			}
			waitBackground(g.c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = timed(dir, env, g.c)
			}()
		}
		wg.Wait()
		for i, g := range group {
			at := ""
			if len(group) > 1 {
				at = fmt.Sprintf(" (%d commands at once)", len(group))
			}
			check(g, results[i], at)
		}
		var released, still []cmd
		for _, h := range held {
			if waitFor(h.c, ranCmds) == "" {
				released = append(released, h)
			} else {
				still = append(still, h)
			}
		}
		queue, held = append(released, queue...), still
	}
	setUpDone()
	js.stopAll()
	for _, b := range bg {
		if b.until != "" {
			t.Errorf("README.md:%d: %s ran in the background until %q, which no later command has", b.line, b.c, b.until)
		}
	}
	waitBackground("")
	waitBuild()
	laneRes := <-laneDone
	laneDone = nil
	for i, g := range lane {
		check(g, laneRes[i], " (in the phone's lane)")
	}
	for k := range background {
		if !bgSeen[k] {
			t.Errorf("background names %q, which no README command has", k)
		}
	}
	for _, h := range held {
		t.Errorf("README.md:%d: %s waits for %q, which never ran", h.line, h.c, waitFor(h.c, ranCmds))
	}
	for k := range notRun {
		if !used[k] {
			t.Errorf("notRun names %q, which no README command has", k)
		}
	}
	if left := leftBehind(t, dir); left != "" {
		t.Errorf("the README's commands left files in the checkout, outside its scratch folder (git status --porcelain):\n%s", left)
	}
	t.Logf("ran %d README commands", ran)
}

// perfgateCmd finds a command that runs perfgate: from PATH, or through
// go run, which would link it again if the test's build were not done.
var perfgateCmd = regexp.MustCompile(`(^|[\s|;&(])perfgate\s|\./cmd/perfgate`)

// usesPerfgate reports whether c, its comment aside, runs perfgate.
func usesPerfgate(c string) bool {
	code, _, _ := strings.Cut(c, " #")
	return perfgateCmd.MatchString(code)
}

// A cmd is one command of the README, at the line of its block.
type cmd struct {
	line int
	c    string
}

// done is how a command ended.
type done struct {
	out  string
	code int
	took time.Duration
	err  error
}

// timed runs c as runShell does and says how long it took.
func timed(dir string, env []string, c string) done {
	start := time.Now()
	out, code, err := runShell(dir, env, c)
	return done{out, code, time.Since(start), err}
}

// lanePiece finds the files a command writes: the target of a
// redirection, or the file adb pull copies into the current folder.
var lanePiece = regexp.MustCompile(`(?:>\s*|adb pull \S*/)([A-Za-z0-9_./-]+)`)

// phoneLane takes out of cmds, in README order, the commands of the blocks
// that talk to the phone, and of the blocks with a command that waits
// (see after) for one of theirs: the phone's lane, which runs beside the
// other commands. Commands a fresh checkout cannot run (see notRun) are
// logged and dropped; a command that waits for a later one goes after it.
// The lane's commands only use the phone, which no other command talks
// to, and their own files: a file the lane writes that another command
// names fails the test.
func phoneLane(t *testing.T, cmds []cmd, used map[string]bool) (rest, lane []cmd) {
	t.Helper()
	var run []cmd
	for _, g := range cmds {
		if why := skipped(g.c, used); why != "" {
			t.Logf("README.md:%d: not run: %s: %s", g.line, g.c, why)
			continue
		}
		run = append(run, g)
	}
	// A block that starts a phone of its own in the background talks to
	// that phone, not the lane's.
	ownPhone := map[int]bool{} // by block line
	for _, g := range run {
		if jobCmd.MatchString(g.c) {
			ownPhone[g.line] = true
		}
	}
	inLane := map[int]bool{} // by block line
	for grew := true; grew; {
		grew = false
		for _, g := range run {
			if inLane[g.line] {
				continue
			}
			join := deviceCmd(g.c) && !ownPhone[g.line]
			for k, v := range after {
				join = join || strings.Contains(g.c, k) && slices.ContainsFunc(run, func(o cmd) bool { return inLane[o.line] && strings.Contains(o.c, v) })
			}
			if join {
				inLane[g.line], grew = true, true
			}
		}
	}
	files := map[string]bool{}
	ranHere := map[string]bool{}
	var waiting []cmd
	for _, g := range run {
		if !inLane[g.line] {
			rest = append(rest, g)
			continue
		}
		for _, m := range lanePiece.FindAllStringSubmatch(g.c, -1) {
			files[m[1]] = true
		}
		if waitFor(g.c, ranHere) != "" {
			waiting = append(waiting, g)
			continue
		}
		lane = append(lane, g)
		for _, v := range after {
			if strings.Contains(g.c, v) {
				ranHere[v] = true
			}
		}
		var still []cmd
		for _, w := range waiting {
			if waitFor(w.c, ranHere) == "" {
				lane = append(lane, w)
			} else {
				still = append(still, w)
			}
		}
		waiting = still
	}
	for _, w := range waiting {
		t.Errorf("README.md:%d: %s waits for %q, which its lane never runs", w.line, w.c, waitFor(w.c, ranHere))
	}
	for _, g := range rest {
		for f := range files {
			if strings.Contains(g.c, f) {
				t.Errorf("README.md:%d: %s names %s, which the phone's lane writes while it runs", g.line, g.c, f)
			}
		}
	}
	return rest, lane
}

// skipped is why a command is not run, "" when it is.
func skipped(c string, used map[string]bool) string {
	for k, why := range notRun {
		if strings.Contains(c+"  ", k) {
			used[k] = true
			return why
		}
	}
	return ""
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// runShell runs one command in bash in dir and returns its output and exit
// status; the error is bash's own failure to run.
func runShell(dir string, env []string, c string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", c)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode(), nil
	}
	return out.String(), 0, err
}

// freshCheckout copies the files a clone of the repository has (those git
// tracks, and new ones it does not ignore) into a new temporary repository.
// Its path is the same in every run from this checkout, as a reader's
// clone stays where it is, so go finds the packages it compiled last time
// in its build cache (it keys them by directory) instead of compiling
// perfgate anew in each run; a lock keeps two runs from the same
// checkout out of each other's copy, and the copy goes when the test ends.
func freshCheckout(t *testing.T) string {
	t.Helper()
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	out, err := ls.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the test copies what a clone has)", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("perfgate-readme-%x", sum[:6]))
	unlock, err := filelock.Lock(dir+".lock", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	// A clone is a repository: `git rev-parse HEAD` names its commit.
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=readme", "-c", "user.email=readme@example.com", "commit", "-q", "-m", "fresh checkout"}} {
		git := exec.Command("git", args...)
		git.Dir = dir
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// simulatedPhone starts a simulated phone whose app is com.example (main
// activity com.example.Main), drawing, joined to a stock adb server on a
// private port, and returns the variables that point adb and perfgate at
// it as a reader's shell would: ANDROID_ADB_SERVER_PORT and ANDROID_SERIAL.
func simulatedPhone(t *testing.T) []string {
	t.Helper()
	wl, err := simdevice.Preset("janky-scroll")
	if err != nil {
		t.Fatal(err)
	}
	wl.Package, wl.Activity = "com.example", "com.example.Main"
	sim, err := simdevice.New(simdevice.Config{Workload: wl, API: 33, RefreshHz: 60})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	adb := adbtest.StartADB(t)
	dev, _ := adb.Serve(t, sim)
	simtest.Launch(t, dev, sim)
	return []string{fmt.Sprintf("ANDROID_ADB_SERVER_PORT=%d", adb.Port), "ANDROID_SERIAL=" + dev.Serial()}
}

// checkExampleFiles holds the README's inline copies of shipped files to
// the files: the JSON block after "This one is `examples/feed.json`" is
// that file, and so on.
func checkExampleFiles(t *testing.T, readme string) {
	t.Helper()
	for _, name := range []string{"feed.json", "lab.json"} {
		checkExampleFile(t, readme, name)
	}
}

// checkExampleFile holds the JSON block after "This one is
// `examples/<name>`" to the file.
func checkExampleFile(t *testing.T, readme, name string) {
	t.Helper()
	intro := "This one is `examples/" + name + "`"
	i := strings.Index(readme, intro)
	if i < 0 {
		t.Fatalf("README.md no longer says %q", intro)
	}
	j := strings.Index(readme[i:], "```json\n")
	k := strings.Index(readme[i+j+8:], "```")
	if j < 0 || k < 0 {
		t.Fatal("README.md: no JSON block after " + intro)
	}
	inREADME := readme[i+j+8 : i+j+8+k]
	file, err := os.ReadFile(filepath.Join(root, "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal([]byte(inREADME), &a); err != nil {
		t.Fatalf("README.md's examples/%s: %v", name, err)
	}
	if err := json.Unmarshal(file, &b); err != nil {
		t.Fatalf("examples/%s: %v", name, err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("README.md shows examples/%s as\n%s\nthe file holds\n%s", name, inREADME, file)
	}
}

// jobCmd finds a command the README runs in the background with a
// trailing `&` (before its comment), as a reader's shell runs a job.
var jobCmd = regexp.MustCompile(`^(.*[^&])&\s*(#.*)?$`)

// killJob finds the README's command that stops a job by its number.
var killJob = regexp.MustCompile(`^kill %(\d+)\s*(#.*)?$`)

// jobReady is the line each of the README's jobs prints once it serves,
// by a piece of its command: the commands after it wait for that line.
var jobReady = map[string]string{
	"perfgate simdevice": "stop with Ctrl-C",
}

// A job is a README command running in the background, in a process group
// of its own as an interactive shell's job control puts it.
type job struct {
	cmd
	n     int // its number, as %n names it
	proc  *exec.Cmd
	out   *syncOut
	start time.Time
	ended chan done // how it ended, once it has
}

// syncOut is a job's output, which it writes while the test reads it.
type syncOut struct {
	mu    sync.Mutex
	b     bytes.Buffer
	ready string        // the line that says the job serves
	seen  chan struct{} // closed once that line is written
	once  sync.Once
}

func (o *syncOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b.Write(p)
	if strings.Contains(o.b.String(), o.ready+"\n") {
		o.once.Do(func() { close(o.seen) })
	}
	return len(p), nil
}

func (o *syncOut) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// jobs are the README's background jobs that still run.
type jobs struct {
	t       *testing.T
	running []*job
}

// start runs g, a command with a trailing `&`, as a job, and waits for the
// line jobReady names (or for the job to end, which fails the test).
func (js *jobs) start(dir string, env []string, g cmd, line string) {
	t := js.t
	ready := ""
	for k, v := range jobReady {
		if strings.Contains(line, k) {
			ready = v
		}
	}
	if ready == "" {
		t.Fatalf("README.md:%d: %s: a job that jobReady does not say how to wait for", g.line, g.c)
	}
	n := 1
	for _, j := range js.running {
		n = max(n, j.n+1)
	}
	j := &job{cmd: g, n: n, out: &syncOut{ready: ready, seen: make(chan struct{})}, start: time.Now(), ended: make(chan done, 1)}
	j.proc = exec.Command("bash", "-o", "pipefail", "-c", line)
	j.proc.Dir, j.proc.Env = dir, env
	j.proc.Stdout, j.proc.Stderr = j.out, j.out
	j.proc.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := j.proc.Start(); err != nil {
		t.Fatalf("README.md:%d: %s: %v", g.line, g.c, err)
	}
	go func() {
		err := j.proc.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code, err = ee.ExitCode(), nil
		}
		j.ended <- done{j.out.String(), code, time.Since(j.start), err}
	}()
	js.running = append(js.running, j)
	select {
	case <-j.out.seen:
		t.Logf("README.md:%d: %s: serving after %v", g.line, firstLine(g.c), time.Since(j.start).Round(time.Millisecond))
	case r := <-j.ended:
		j.ended <- r
		t.Fatalf("README.md:%d: %s: ended (exit %d) before it printed %q:\n%s", g.line, g.c, r.code, ready, r.out)
	}
}

// kill stops job n as `kill %n` does (SIGTERM to its process group) and
// returns the job and how it ended; nil when there is no job n.
func (js *jobs) kill(n int) (*job, done) {
	for i, j := range js.running {
		if j.n == n {
			js.running = slices.Delete(js.running, i, i+1)
			_ = syscall.Kill(-j.proc.Process.Pid, syscall.SIGTERM)
			return j, <-j.ended
		}
	}
	return nil, done{}
}

// stopAll kills the jobs the README left running, each an error.
func (js *jobs) stopAll() {
	for len(js.running) > 0 {
		j := js.running[0]
		js.t.Errorf("README.md:%d: %s still ran after the README's last command: a reader's lab keeps serving", j.line, j.c)
		js.kill(j.n)
	}
}

// stepSummary is how a command appends to a CI job's summary; the README
// says what it appends (the report's Markdown, linking the HTML report).
const stepSummary = `>> "$GITHUB_STEP_SUMMARY"`

// checkStepSummary checks that g, a command that appends to the job
// summary, appended the report's Markdown summary to the file env's
// GITHUB_STEP_SUMMARY names, a file of the scratch folder.
func checkStepSummary(t *testing.T, g cmd, env []string) {
	t.Helper()
	file := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GITHUB_STEP_SUMMARY="); ok {
			file = v
		}
	}
	if !strings.Contains(file, string(filepath.Separator)+"try"+string(filepath.Separator)) {
		t.Errorf("README.md:%d: %s: GITHUB_STEP_SUMMARY is %q, not a file of the scratch folder try/", g.line, g.c, file)
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("README.md:%d: %s: the job summary: %v", g.line, g.c, err)
		return
	}
	html := regexp.MustCompile(`-html (\S+)`).FindStringSubmatch(g.c)
	for _, want := range []string{"Charts and every metric: [HTML report](", "TestScrollJankBudget"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md:%d: %s: the job summary %s lacks %q:\n%s", g.line, g.c, file, want, b)
		}
	}
	if html != nil && !strings.Contains(string(b), "("+filepath.Base(html[1])+")") {
		t.Errorf("README.md:%d: %s: the job summary does not link the HTML report %s:\n%s", g.line, g.c, html[1], b)
	}
}

// checkNoDevices checks that the README's phones left nothing on the adb
// server they joined (env names it) once k, the command that stops them,
// has run: a phone it keeps, offline, once the phone has gone is one every
// `adb devices` and device pool sees until adb gives up reconnecting.
func checkNoDevices(t *testing.T, dir string, k cmd, env []string) {
	t.Helper()
	out, code, err := runShell(dir, append(slices.Clone(os.Environ()), env...), "adb devices")
	if err != nil || code != 0 {
		t.Fatalf("adb devices: exit %d, %v\n%s", code, err, out)
	}
	var left []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "List of devices") && !strings.HasPrefix(l, "*") {
			left = append(left, l)
		}
	}
	if len(left) > 0 {
		t.Errorf("README.md:%d: after %s the adb server the README's phones joined still lists:\n%s", k.line, k.c, strings.Join(left, "\n"))
	}
}
