// Package hostcmd measures an app while a command runs on the host: a
// Maestro flow, Espresso through `am instrument`, an Appium script, any
// shell script. Each iteration runs the command once as a step of a
// perftest session, so budgets, gates, reports and the history take it
// as they take a scenario's step: "iteration", then "iteration#2",
// "iteration#3", … (a repeated step, which budgets and gates treat as one,
// see metrics.BaseStep).
//
//	s, err := perftest.NewSession(ctx, dev, perftest.Config{Package: pkg, WaitForApp: true})
//	its := hostcmd.Run(ctx, s, dev, []string{"maestro", "test", "flow.yaml"}, hostcmd.Config{Package: pkg, Iterations: 5})
//	r := s.Stop() // an iteration that failed is a failing verdict in r
//
// The command gets ANDROID_SERIAL and the adb server (ADB_SERVER_SOCKET,
// ANDROID_ADB_SERVER_ADDRESS, ANDROID_ADB_SERVER_PORT) of the device the
// session measures, so that it drives the same phone, and
// PERFGATE_ITERATION and PERFGATE_STEP. It runs in a process group of its
// own: when ctx ends, the whole group is stopped (SIGTERM, then SIGKILL)
// and the step in progress is marked unfinished. A command that exits
// non-zero, or runs past Config.Timeout, fails its step with a verdict in
// the Result (perftest.Session.FailStep), and the iterations after it are
// not run.
//
// The flags follow Flashlight's `flashlight test --testCommand …
// --iterationCount N` (bamlab/flashlight, packages/commands/test/src/bin.ts):
// the app force-stopped before each iteration unless told not to, one
// result per iteration, the run failing when an iteration fails.
package hostcmd
