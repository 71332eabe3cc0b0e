// Package adbx is perfgate's one way to talk to an Android device: it picks
// a device through the adb server, runs shell commands with a context and a
// deadline, runs several commands in one round trip, streams logcat,
// forwards ports, pushes and pulls files, and reads the facts about the
// device and app that the metrics need.
//
//	d, err := adbx.Open(ctx, adbx.Options{}) // $ANDROID_SERIAL, else the only device
//	if err != nil { … }
//	rs, err := d.Batch(ctx, []string{"cat /proc/stat", "pidof " + pkg})
//
// It speaks the adb host protocol (SERVICES.TXT, shell v2, sync) itself
// over a net.Conn, framed by internal/adbwire, so every call ends when its
// context does, exit statuses come back, and output streams; Gadb hands
// the same device to libraries built on github.com/electricbubble/gadb.
// The device's text (ps, pm, dumpsys package, dumpsys display, /proc/stat)
// is read with the parsers under android/, the one parser of each format, and
// Facts returns a procfs.DeviceFacts, the type a Result records.
//
// A package name goes into a command only after dumpsys.ValidatePackage has
// accepted it, and any other text a caller passes is quoted (Quote). The
// package imports the android/ parsers and internal/adbwire of perfgate,
// nothing above them.
//
// Every Shell and Batch call reads at most Options.MaxOutput bytes
// (DefaultMaxOutput, 64 MiB): a command printing more is stopped.
//
// Errors name the device and the command and wrap sentinels callers branch
// on: ErrNoDevice, ErrManyDevices, ErrDeviceGone, ErrAppNotInstalled,
// ErrTimeout, ErrOutputTooLarge.
package adbx
