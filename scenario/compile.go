package scenario

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// Compilation is how the app's code is compiled before a step's launches,
// after Macrobenchmark's CompilationMode (androidx/androidx
// benchmark/benchmark-macro/src/main/java/androidx/benchmark/macro/CompilationMode.kt):
// the phone compiles the app once before the launches and restores its
// state after them (StartupOptions.Compilation).
type Compilation string

const (
	// CompileAsIs leaves the app as the phone compiled it (Macrobenchmark's
	// Ignore): a start's time then depends on what the phone did last.
	CompileAsIs Compilation = ""
	// CompileNone runs the app without code compiled ahead of time:
	// `cmd package compile --reset`, then `-m verify -f` (what
	// Macrobenchmark's None does from Android 14, where --reset restores
	// the install state).
	CompileNone Compilation = "none"
	// CompilePartial installs the APK's baseline profile (profileinstaller's
	// INSTALL_PROFILE broadcast) and compiles what it names: `cmd package
	// compile -m speed-profile -f`. An APK without one is noted and
	// compiled with the profile ART has.
	CompilePartial Compilation = "partial"
	// CompileFull compiles all the app's code: `cmd package compile -m
	// speed -f`.
	CompileFull Compilation = "full"
)

// ParseCompilation reads a compilation mode by name: none, partial, full,
// or empty for as is.
func ParseCompilation(s string) (Compilation, error) {
	switch c := Compilation(s); c {
	case CompileAsIs, CompileNone, CompilePartial, CompileFull:
		return c, nil
	}
	return "", fmt.Errorf("compilation %s: want none, partial or full", excerpt.Quote(s))
}

// compileWait bounds one `cmd package compile`, which for a large app
// with -m speed takes tens of seconds, longer than a device call's
// default deadline (adbx.DefaultTimeout).
const compileWait = 2 * time.Minute

// dexopt is the app's state as `dumpsys package` shows it.
type dexopt struct {
	filter, reason string
}

var dexoptLine = regexp.MustCompile(`\[status=([a-z-]+)\]\s*\[reason=([a-z0-9-]+)`)

// ParseDexoptState reads the compiler filter and its reason of the first
// instruction set in the "Dexopt state" section of `dumpsys package <pkg>`
// (`arm64: [status=speed-profile] [reason=install]`); false when the
// output has none.
func ParseDexoptState(out []byte) (filter, reason string, ok bool) {
	_, rest, found := strings.Cut(string(out), "Dexopt state:")
	if !found {
		return "", "", false
	}
	m := dexoptLine.FindStringSubmatch(rest)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// compiler applies a Compilation to the app and restores its state.
type compiler struct {
	dev   *adbx.Device
	pkg   string
	notes []string
	// dropNoted: the page cache could not be dropped, and a note says so.
	dropNoted bool
}

// state reads the app's dexopt state; the zero dexopt when the phone does
// not say.
func (c *compiler) state(ctx context.Context) dexopt {
	r, err := c.dev.Shell(ctx, "dumpsys package "+adbx.Quote(c.pkg))
	if err != nil {
		return dexopt{}
	}
	f, why, _ := ParseDexoptState(r.Stdout)
	return dexopt{f, why}
}

// run runs a compile command, noting what the phone refused: a command
// that fails or does not print "Success" (on a user build before Android
// 14, --reset is refused).
func (c *compiler) run(ctx context.Context, args string) bool {
	cmd := "cmd package compile " + args + " " + adbx.Quote(c.pkg)
	ctx, cancel := context.WithTimeout(ctx, compileWait)
	defer cancel()
	r, err := c.dev.Shell(ctx, cmd)
	switch {
	case err != nil:
		c.notes = append(c.notes, fmt.Sprintf("%s: %v", cmd, err))
	case r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "Success"):
		c.notes = append(c.notes, fmt.Sprintf("%s refused (exit %d): %s", cmd, r.ExitCode, excerpt.Quote(strings.TrimSpace(string(r.Stdout)+string(r.Stderr)))))
	default:
		return true
	}
	return false
}

// installProfile sends profileinstaller's INSTALL_PROFILE broadcast, as
// Macrobenchmark's ProfileInstallBroadcast does; a result other than
// installed (1) or already installed (2) is a note.
func (c *compiler) installProfile(ctx context.Context) {
	cmd := "am broadcast -a androidx.profileinstaller.action.INSTALL_PROFILE -n " + adbx.Quote(c.pkg+"/androidx.profileinstaller.ProfileInstallReceiver")
	r, err := c.dev.Shell(ctx, cmd)
	if err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s: %v", cmd, err))
		return
	}
	_, res, _ := strings.Cut(string(r.Stdout), "result=")
	code, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(res, "\n", 2)[0]))
	switch code {
	case 1, 2:
	case 0:
		c.notes = append(c.notes, "no baseline profile installed: the app has no profileinstaller receiver (broadcast result 0)")
	case 6:
		c.notes = append(c.notes, "no baseline profile installed: the APK ships none (profileinstaller result 6, BASELINE_PROFILE_NOT_FOUND)")
	default:
		c.notes = append(c.notes, fmt.Sprintf("no baseline profile installed: profileinstaller result %d", code))
	}
}

// apply compiles the app the way mode says and returns what restores its
// state: its install state (`--reset`) when it had that one or the phone
// did not say, else, or when the phone refuses --reset, the compiler
// filter it had (`-m FILTER -f`).
func (c *compiler) apply(ctx context.Context, mode Compilation) (restore func(context.Context)) {
	if mode == CompileAsIs {
		return func(context.Context) {}
	}
	before := c.state(ctx)
	switch mode {
	case CompileNone:
		c.run(ctx, "--reset")
		c.run(ctx, "-m verify -f")
	case CompilePartial:
		c.installProfile(ctx)
		c.run(ctx, "-m speed-profile -f")
	case CompileFull:
		c.run(ctx, "-m speed -f")
	}
	return func(ctx context.Context) {
		if (before.filter == "" || before.reason == "install") && c.run(ctx, "--reset") || before.filter == "" {
			return
		}
		// Its filter, when it had one other than the install state's or
		// the phone refused --reset (a user build before Android 14).
		c.run(ctx, "-m "+before.filter+" -f")
	}
}

// coldDrop drops what a cold start should not find: the app's process
// (`am force-stop`) and, where the shell may, the page cache (`echo 3 >
// /proc/sys/vm/drop_caches`, root only). What the phone refused is noted
// once.
func (c *compiler) coldDrop(ctx context.Context) {
	c.dev.Shell(ctx, "am force-stop "+adbx.Quote(c.pkg))
	const cmd = "echo 3 > /proc/sys/vm/drop_caches"
	r, err := c.dev.Shell(ctx, cmd)
	if (err != nil || r.ExitCode != 0) && !c.dropNoted {
		c.dropNoted = true
		why := "exit " + strconv.Itoa(r.ExitCode) + ": " + strings.TrimSpace(string(r.Stderr))
		if err != nil {
			why = err.Error()
		}
		c.notes = append(c.notes, "page cache kept between cold starts: "+cmd+" needs root ("+why+")")
	}
}
