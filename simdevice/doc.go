// Package simdevice is a simulated Android phone that speaks what a real
// one speaks over adb and knows the ground truth of everything it prints,
// so that perfgate's collectors can be tested against it:
//
//	d, err := simdevice.New(simdevice.Config{API: 34, Workload: wl})
//	…
//	d.Shell(ctx, "dumpsys gfxinfo com.example framestats", nil, os.Stdout, os.Stderr)
//	truth := d.World().Truth() // the frames the app really rendered
//
// adbx/adbtest serves a Device over the adb protocols; the CLI's
// `perfgate simdevice` does the same for the stock adb server.
//
// The package has three parts, each readable alone:
//
//   - The world (World, in world*.go): the phone's clock, processes, CPU,
//     memory, traffic, battery and log, and the app that runs a Workload
//     (workload.go, preset.go) or replays a capture (replay.go), rendering
//     frames whose truth (truth.go) it keeps. Quirks (quirks.go) and
//     FrameQuirks (frame_quirks.go) switch on the ways real phones misbehave.
//     Noise (noise.go) makes its figures vary from run to run and sample to
//     sample, from a seed.
//     A workload's causes (causes.go) make its slow frames slow for named
//     reasons: the app's main Looper logs them once the property is set
//     (world_anr.go has setprop and the ANRs), and simpleperf samples them
//     (profiler.go).
//     The World answers the device's own programs (dumpsys, am, pm, ps,
//     logcat …, in world_cmds.go, world_log.go, dumpsys*.go and
//     programs.go) and renders /proc and /sys (world_files.go, battery.go).
//   - The output formats (internal/format): pure functions that lay out
//     dumpsys, /proc, /sys and logcat text as each API level prints it. The
//     World decides the values, the format package how they look.
//   - The shell (internal/shell) and its file tree (internal/vfs): mksh and
//     toybox over a virtual file system with the phone's writable folders,
//     read-only partitions and permissions, whose /proc and /sys are the
//     World's. The shell runs the World's programs through the table the
//     Device hands it, and reaches nothing of the host.
//
// The Device (device.go) ties them together: it builds the World, the file
// tree and the shell from a Config, and serves shell commands, the sync
// service's files and TCP connections to the uiautomator2 server (package
// uia2) as adbd would.
//
// Of perfgate, the package imports metrics only (the frame reject reasons a
// truth frame names, and the gfxinfo parser a replayed capture is read
// with) and its own internal packages; the shell and the file tree are
// internal so that nothing outside the phone depends on how it is built.
package simdevice
