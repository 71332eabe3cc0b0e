// Package testenv tells tests what the machine offers: the stock adb binary,
// and a real phone. Tests that need one of them call these helpers, which skip
// with a clear reason where it is missing. PERFGATE_REQUIRE_ADB=1 (set by CI)
// turns a missing adb binary into a failure, so the real-adb tests cannot
// silently stop running.
package testenv

import (
	"flag"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// TB is the part of testing.TB these helpers use.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// ADB returns the path of the stock adb binary, or skips the test.
func ADB(t TB) string {
	t.Helper()
	p, err := exec.LookPath("adb")
	if err != nil {
		if os.Getenv("PERFGATE_REQUIRE_ADB") == "1" {
			t.Fatalf("adb binary not found on PATH and PERFGATE_REQUIRE_ADB=1 (install it: apt-get install -y adb)")
		}
		t.Skipf("adb binary not found on PATH (install it: apt-get install -y adb); set PERFGATE_REQUIRE_ADB=1 to make this a failure")
	}
	return p
}

// RealDevice returns the serial of an attached phone or emulator, or skips the
// test: it uses ANDROID_SERIAL, else asks `adb devices` for exactly one device.
func RealDevice(t TB) string {
	t.Helper()
	if s := os.Getenv("ANDROID_SERIAL"); s != "" {
		return s
	}
	p, err := exec.LookPath("adb")
	if err != nil {
		t.Skipf("no real device: ANDROID_SERIAL is unset and adb is not installed")
	}
	out, err := exec.Command(p, "devices").Output()
	if err != nil {
		t.Skipf("no real device: adb devices failed: %v", err)
	}
	var serials []string
	for _, line := range strings.Split(string(out), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "device" {
			serials = append(serials, f[0])
		}
	}
	if len(serials) != 1 {
		t.Skipf("no real device: ANDROID_SERIAL is unset and adb devices lists %d devices %v", len(serials), serials)
	}
	return serials[0]
}

// RunWaiting runs the tests of a package whose tests spend most of their
// time waiting on simulated phones that run in real time, or on the
// processes they start: its parallel tests run n at once instead of one
// per core, so their waits overlap. A TestMain calls it in place of m.Run.
func RunWaiting(m interface{ Run() int }, n int) int {
	SkipRaceExitSleep()
	WaitingParallel(n)
	return m.Run()
}

// WaitingParallel makes n the default of -test.parallel. The testing
// package parses the command line after it, so `go test -parallel k`
// still decides. It is for a TestMain that cannot call RunWaiting, one
// that hands m to another runner.
func WaitingParallel(n int) {
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		panic("testenv: " + err.Error())
	}
}
