package adbtest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/electricbubble/gadb"
	"github.com/perfgate/perfgate/adbx/adbtest"
)

// A test serves a data-literal device over the host protocol and drives it
// with an adb client library, with no adb binary and no phone.
func ExampleNewServer() {
	dev := &adbtest.FakeDevice{
		SerialNo: "sim-1",
		Commands: map[string]adbtest.FakeResult{
			"getprop ro.build.version.sdk": {Stdout: "33\n"},
		},
	}
	srv := adbtest.NewServer(dev)
	defer srv.Close()

	client, err := gadb.NewClientWith("127.0.0.1", srv.Port())
	if err != nil {
		fmt.Println(err)
		return
	}
	devices, err := client.DeviceList()
	if err != nil || len(devices) != 1 {
		fmt.Println(devices, err)
		return
	}
	out, err := devices[0].RunShellCommand("getprop ro.build.version.sdk")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(devices[0].Serial(), ": ", out)
	fmt.Println("round trips:", srv.Streams("sim-1"))
	// Output:
	// sim-1: 33
	// round trips: 1
}

// A test gets the device a server serves ready for use, as
// httptest.Server.Client gives a client: no adb binary, no phone.
func ExampleServer_Open() {
	srv := adbtest.NewServer(&adbtest.FakeDevice{
		SerialNo: "sim-1",
		Commands: map[string]adbtest.FakeResult{"getprop ro.build.version.sdk": {Stdout: "34\n"}},
	})
	defer srv.Close()

	d := srv.Open("") // the only device attached
	r, err := d.Shell(context.Background(), "getprop ro.build.version.sdk")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s", d.Serial(), r.Stdout)
	// Output:
	// sim-1: 34
}

// A FakeDevice answers commands from its table and fails the others as sh
// does.
func ExampleFakeDevice() {
	dev := &adbtest.FakeDevice{
		Commands: map[string]adbtest.FakeResult{
			"pidof com.example.app": {Stdout: "4242\n"},
		},
	}
	ctx := context.Background()
	code := dev.Shell(ctx, "pidof com.example.app", nil, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	code = dev.Shell(ctx, "frobnicate --now", nil, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// 4242
	// exit 0
	// /system/bin/sh: frobnicate: inaccessible or not found
	// exit 127
}

// Removing a device cuts its streams, as unplugging a phone does.
func ExampleServer_Remove() {
	srv := adbtest.NewServer(&adbtest.FakeDevice{SerialNo: "a"}, &adbtest.FakeDevice{SerialNo: "b"})
	defer srv.Close()
	srv.Remove("a")

	client, _ := gadb.NewClientWith("127.0.0.1", srv.Port())
	serials, err := client.DeviceSerialList()
	fmt.Println(serials, err)
	// Output:
	// [b] <nil>
}
