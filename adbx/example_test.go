package adbx_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// simulated starts a simulated phone behind a loopback adb server, where a
// real test would have a phone attached to `adb start-server`, and returns
// it opened.
func simulated(cfg simdevice.Config) (d *adbx.Device, stop func()) {
	dev, err := simdevice.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	srv := adbtest.NewServer(dev)
	return srv.Open(""), func() { srv.Close(); dev.Close() }
}

func ExampleOpen() {
	sim, stop := simulated(simdevice.Config{Serial: "emulator-5554"})
	defer stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// With a phone attached, adbx.Options{} is enough.
	d, err := adbx.Open(ctx, adbx.Options{Server: sim.Server()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Serial())
	// Output: emulator-5554
}

func ExampleDevice_Shell() {
	d, stop := simulated(simdevice.Config{})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	r, err := d.Shell(ctx, "getprop ro.build.version.sdk; echo oops >&2; exit 3")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("stdout %q, stderr %q, exit %d\n", r.Stdout, r.Stderr, r.ExitCode)
	// Output: stdout "33\n", stderr "oops\n", exit 3
}

func ExampleDevice_Batch() {
	d, stop := simulated(simdevice.Config{})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// One round trip, three results, each with its own output and status.
	rs, err := d.Batch(ctx, []string{"getconf CLK_TCK", "printf 'no newline'", "false"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rs {
		fmt.Printf("%q %d\n", r.Stdout, r.ExitCode)
	}
	// Output:
	// "100\n" 0
	// "no newline" 0
	// "" 1
}

func ExampleDevice_Facts() {
	d, stop := simulated(simdevice.Config{API: 34, Model: "Pixel 8", Cores: 8, RefreshHz: 120})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	f, notes, err := d.Facts(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s, API %d, %d cores, %g Hz, %d ticks/s\n", f.Model, f.API, f.Cores, f.RefreshHz, f.ClockTicks)
	// Notes say which facts came from a fallback; this phone needs none.
	for _, n := range notes {
		fmt.Println("note:", n)
	}
	// Output: Pixel 8, API 34, 8 cores, 120 Hz, 100 ticks/s
}

func ExampleDevice_Logcat() {
	d, stop := simulated(simdevice.Config{})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	// Closing the reader (or ctx ending) stops logcat on the device.
	r, err := d.Logcat(ctx, time.Time{}, "*:I")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	buf := make([]byte, 19)
	if _, err := io.ReadFull(r, buf); err != nil {
		log.Fatal(err)
	}
	// A threadtime line starts with "MM-DD hh:mm:ss.mmm ".
	fmt.Println(len(strings.Fields(string(buf))))
	// Output: 2
}

func ExampleQuote() {
	name := "it's $(not) a command"
	fmt.Println("echo " + adbx.Quote(name))
	// Output: echo 'it'\''s $(not) a command'
}
