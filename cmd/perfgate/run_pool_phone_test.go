package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simlab"
	"github.com/perfgate/perfgate/trace"
)

// clearPoolEnv empties the variables a pool and an update read, so the
// test's flags alone describe the pool.
func clearPoolEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{devicepool.EnvConfig, devicepool.EnvServers, devicepool.EnvModels, devicepool.EnvAPI, devicepool.EnvSerial, devicepool.EnvShard, budget.EnvUpdate} {
		t.Setenv(k, "")
	}
}

// TestRunOnPoolOnePhoneTwoPaths: two phones reached four ways — the Pixel
// 8 on two adb servers under one serial, the Pixel 4a over TCP (the stock
// adb server's `adb connect`, listed first) and by its own serial on the
// second pure-Go server, as a phone on USB and TCP at once — are two
// devices: each leased once, through its USB path or else the first server
// listed, the run says which serials it took for one phone, and it passes.
// Leased twice, each phone ran the scenario twice at once, and one run's
// uiautomator2 session ended the other's ("invalid session id").
func TestRunOnPoolOnePhoneTwoPaths(t *testing.T) {
	lab := simlab.Start(t, simlab.Lab{Phones: []simlab.Phone{
		{Model: "Pixel 8", API: 34, Workload: "smooth-scroll"},
		{Model: "Pixel 4a", API: 30, Workload: "smooth-scroll", Server: simlab.ServerADB},
	}})
	p8, p4a := lab.Phones[0], lab.Phones[1]
	second := adbtest.NewServer(p8.Dev, p4a.Dev)
	t.Cleanup(second.Close)
	clearPoolEnv(t)

	dir := t.TempDir()
	scen := filepath.Join(dir, "feed.json")
	if err := os.WriteFile(scen, []byte(`{
  "package": "com.perfgate.demo",
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 1 } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 2 }, { "action": "sleep", "ms": 300 } ] }
  ]
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []string{p4a.Server, p8.Server, second.Addr}
	var out, errb syncBuffer
	err := run([]string{"run", "-pool", "-servers", strings.Join(servers, ","), scen}, &out, &errb)
	text := out.String() + errb.String()
	if err != nil {
		t.Fatalf("run -pool: %v\n%s", err, text)
	}
	for _, want := range []string{
		"run: " + scen + " on 2 devices",
		// The Pixel 8: one serial on two servers; the first listed wins.
		"run: one phone: " + p8.Serial + " on " + p8.Server + ", " + p8.Serial + " on " + second.Addr + "; leased as " + p8.Serial + " on " + p8.Server + " (the first server listed)",
		// The Pixel 4a: USB wins over TCP, although TCP's server is listed first.
		"run: one phone: " + p4a.Serial + " on " + p4a.Server + ", " + p4a.Dev.Serial() + " on " + second.Addr + "; leased as " + p4a.Dev.Serial() + " on " + second.Addr + " (USB, not TCP)",
		"=== Google Pixel 8 (API 34, " + p8.Serial + " on " + p8.Server + ")",
		"=== Google Pixel 4a (API 30, " + p4a.Dev.Serial() + " on " + second.Addr + ")",
		"run: passed on 2 devices",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "invalid session id") {
		t.Errorf("a phone was driven twice at once:\n%s", text)
	}
	// One Result per phone, each of its own phone.
	files, _ := filepath.Glob(filepath.Join(dir, "perf-results", "*.json"))
	var serials []string
	for _, f := range files {
		r, err := result.ReadResult(f)
		if err != nil {
			t.Fatal(err)
		}
		serials = append(serials, r.Device.Serial)
	}
	slices.Sort(serials)
	if want := []string{p8.Serial, p4a.Dev.Serial()}; !slices.Equal(serials, want) {
		t.Errorf("Results of %v, want one of each of %v", serials, want)
	}
}

// TestRunOnPoolSidecars: four phones of four API levels run one scenario
// at once, into one folder, with a Perfetto trace and the main thread
// sampled, and two steps that fail (each saves a screenshot). Every
// Result's files share its stem (feed@….3.json, feed@….3.folded,
// feed@….3.perfetto-trace), and every file a Result links is there and is
// its own: the folded stacks hold the samples it counts, the trace is the
// size it says and of its phone's Android build, the screenshots carry its
// phone's serial. Files of the user's, named as the first stem's trace and
// folded stacks, stay, and no Result takes that stem.
func TestRunOnPoolSidecars(t *testing.T) {
	lab := simlab.Start(t, simlab.Lab{Phones: []simlab.Phone{
		{Model: "Pixel 8", API: 34},
		{Model: "Pixel 4a", API: 30, Server: simlab.ServerADB},
		{Model: "Pixel 7", API: 33},
		{Model: "Pixel 3", API: 28, Server: simlab.ServerADB},
	}})
	clearPoolEnv(t)
	dir := t.TempDir()
	scen := filepath.Join(dir, "feed.json")
	if err := os.WriteFile(scen, []byte(`{
  "package": "com.perfgate.demo",
  "steps": [
    { "name": "launch", "actions": [ { "action": "launch", "kind": "cold", "iterations": 1 } ] },
    { "name": "scroll", "actions": [ { "action": "swipe", "direction": "up", "count": 2 } ] },
    { "name": "open", "actions": [ { "action": "wait", "text": "No such row", "timeout_ms": 100 } ] },
    { "name": "close", "actions": [ { "action": "wait", "desc": "No such button", "timeout_ms": 100 } ] }
  ],
  "trace": true
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "perf-results")
	base := "feed"
	if pkg := result.TestPackage(); pkg != "" {
		base += "@" + strings.ReplaceAll(pkg, "/", ".")
	}
	if err := os.MkdirAll(results, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := map[string]string{
		filepath.Join(results, base+".folded"):         "my flame graph notes\n",
		filepath.Join(results, base+".perfetto-trace"): "my notes on a trace\n",
	}
	for p, s := range mine {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var out, errb syncBuffer
	err := run([]string{"run", "-pool", "-servers", strings.Join(lab.Servers(), ","), scen}, &out, &errb)
	text := out.String() + errb.String()
	if err == nil || !strings.Contains(err.Error(), "failed on 4 of 4 devices") || strings.Count(text, "2 failed steps, 0 broken budgets") != 4 {
		t.Fatalf("run -pool: %v, want each device to fail the two steps that wait in vain\n%s", err, text)
	}
	files, _ := filepath.Glob(filepath.Join(results, "*.json"))
	if len(files) != 4 {
		t.Fatalf("%d Results: %q\n%s", len(files), files, text)
	}
	seen := map[string]bool{}
	traces := 0
	for _, f := range files {
		r, err := result.ReadResult(f)
		if err != nil {
			t.Fatal(err)
		}
		stem := strings.TrimSuffix(filepath.Base(f), ".json")
		phone := lab.Phone(serverOf(lab, r.Device.Serial), r.Device.Serial)
		if phone == nil || seen[r.Device.Serial] {
			t.Fatalf("%s: of %q, not one of the lab's phones once", stem, r.Device.Serial)
		}
		seen[r.Device.Serial] = true
		if stem == base {
			t.Errorf("%s takes the stem of the user's files", f)
		}
		// The sampler starts at a session's first tick after the launch:
		// a host too busy to run it before Stop leaves no stacks, and says
		// so.
		switch {
		case r.Causes == nil || r.Causes.StacksFile == "":
			t.Logf("%s: no folded stacks (%+v; notes %q)", stem, r.Causes, r.Notes)
		case r.Causes.StacksFile != stem+".folded":
			t.Errorf("%s names folded stacks %s", stem, r.Causes.StacksFile)
		default:
			if n := foldedSamples(t, filepath.Join(results, r.Causes.StacksFile)); n != r.Causes.Samples {
				t.Errorf("%s: %s holds %d samples, the Result counts %d", stem, r.Causes.StacksFile, n, r.Causes.Samples)
			}
		}
		if r.Device.API >= 29 && (r.Trace == nil || r.Trace.File == "") {
			t.Errorf("%s (API %d) names no trace: %+v", stem, r.Device.API, r.Trace)
		}
		if r.Trace != nil && r.Trace.File != "" {
			traces++
			if filepath.Base(r.Trace.File) != stem+".perfetto-trace" {
				t.Errorf("%s names the trace %s", stem, r.Trace.File)
			}
			checkTraceOf(t, r, phone.Dev.Config().Workload.Package)
		}
		var shots []string
		for _, v := range r.Verdicts {
			if _, rest, ok := strings.Cut(v.Line, "(screenshot "); ok {
				shots = append(shots, strings.TrimSuffix(rest, ")"))
			}
		}
		if len(shots) != 2 {
			t.Errorf("%s: screenshots %q, want one for each failed step", stem, shots)
		}
		for _, s := range shots {
			b, err := os.ReadFile(s)
			if err != nil || !strings.HasPrefix(string(b), "\x89PNG") || !strings.HasSuffix(s, "@"+strings.ReplaceAll(r.Device.Serial, ":", "_")+".png") {
				t.Errorf("%s: screenshot %s: %v", stem, s, err)
			}
		}
	}
	if traces < 3 {
		t.Errorf("%d traces, want one for each phone of Android 10 or later", traces)
	}
	for p, want := range mine {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("the user's %s now holds %q", filepath.Base(p), b)
		}
	}
}

// serverOf is the lab server that lists serial.
func serverOf(lab *simlab.Running, serial string) string {
	for _, p := range lab.Phones {
		if p.Serial == serial {
			return p.Server
		}
	}
	return ""
}

// foldedSamples sums the counts of a folded stacks file.
func foldedSamples(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		k, err := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
		if err != nil {
			t.Fatalf("%s: line %q", p, line)
		}
		n += k
	}
	return n
}

// checkTraceOf checks that r's trace file is r's: the size r says, of the
// Android build of r's phone (the simulated build fingerprint names the
// API level).
func checkTraceOf(t *testing.T, r *result.Result, pkg string) {
	t.Helper()
	f, err := os.Open(r.Trace.File)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	a, err := trace.Analyze(f, trace.Options{Package: pkg})
	if err != nil {
		t.Errorf("%s: %v", r.Trace.File, err)
		return
	}
	if fi.Size() != r.Trace.SizeBytes || a.SDK != r.Device.API || !strings.Contains(a.Device, "/SIM1."+strconv.Itoa(r.Device.API)+"/") {
		t.Errorf("%s is not the trace of %s (API %d, %d bytes): %d bytes, SDK %d, device %q",
			r.Trace.File, r.Device.Serial, r.Device.API, r.Trace.SizeBytes, fi.Size(), a.SDK, a.Device)
	}
}
