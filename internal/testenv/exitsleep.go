package testenv

import (
	"os"
	"strings"
)

// Main runs a package's tests and returns their exit status; a TestMain
// calls it in place of m.Run:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
//
// Under the race detector it first drops the detector's sleep at exit
// (see SkipRaceExitSleep), which would add a second to every test binary.
func Main(m interface{ Run() int }) int {
	SkipRaceExitSleep()
	return m.Run()
}

// SkipRaceExitSleep makes a test binary built with -race skip the second
// the race detector sleeps when the process exits (GORACE
// atexit_sleep_ms, 1000 by default), waiting for races in goroutines that
// outlive main. A test binary's goroutines are done with by then: testing
// fails the run on any race seen up to the end of its tests. The detector
// reads GORACE once, at start, so the binary runs itself again in place
// (exec, same process id, same arguments) with atexit_sleep_ms=0 added.
// It does nothing without -race, where GORACE already names
// atexit_sleep_ms, or where exec is not available.
func SkipRaceExitSleep() {
	if !raceEnabled || strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := []string{"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	// exec returns only when it fails; the tests then run as they are.
	_ = execSelf(exe, os.Args, env)
}
