package simdevice_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/simdevice"
)

// The simulated phone is what the loopback adb endpoints serve.
var _ adbtest.Device = (*simdevice.Device)(nil)

// A Device runs command lines as an adb shell would on a phone.
func ExampleDevice_Shell() {
	d, err := simdevice.New(simdevice.Config{API: 34})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	st := d.Shell(ctx, "id -u; getconf CLK_TCK; echo ok > /data/local/tmp/f && cat /data/local/tmp/f", nil, os.Stdout, os.Stdout)
	fmt.Println("status", st)
	st = d.Shell(ctx, "frobnicate", nil, os.Stdout, os.Stdout)
	fmt.Println("status", st)
	// Output:
	// 2000
	// 100
	// ok
	// status 0
	// /system/bin/sh: frobnicate: inaccessible or not found
	// status 127
}

// Pushed files land in the device's writable tree and are visible to the
// shell; read-only partitions refuse them as a phone does.
func ExampleDevice_Create() {
	d, err := simdevice.New(simdevice.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	w, err := d.Create("/sdcard/budget.json", 0o644, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	io.WriteString(w, `{"jank":3}`+"\n")
	w.Close()
	d.Shell(context.Background(), "cat /storage/emulated/0/budget.json", nil, os.Stdout, os.Stdout)

	_, err = d.Create("/system/app/x.apk", 0o644, time.Now())
	fmt.Println(err)
	// Output:
	// {"jank":3}
	// create /system/app/x.apk: read-only file system
}

// Only the uiautomator2 port listens inside the device.
func ExampleDevice_DialTCP() {
	d, err := simdevice.New(simdevice.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	_, err = d.DialTCP(context.Background(), 8080)
	fmt.Println(strings.Contains(err.Error(), "connection refused"))
	// Output:
	// true
}
