// Package adbtest provides loopback adb endpoints serving simulated devices,
// in the spirit of net/http/httptest: the fake is the real protocol.
//
//   - Server (NewServer) is an adb server in pure Go. It speaks the host
//     protocol on 127.0.0.1 and serves its Devices itself, so adb clients
//     (adbx, gadb, even the stock adb client with -P) run against it
//     without an adb binary.
//   - Adbd (NewAdbd, ListenAdbd) is the device side: it speaks the device
//     protocol for one Device, so the stock adb server joins it with
//     `adb connect`, as it joins a phone in TCP mode.
//   - StartADB runs the stock adb server on a private port for a test.
//
// Both endpoints offer the same device services: shell: (raw and shell
// protocol v2), exec:, sync: (STAT, STA2, LST2, LIST, LIS2, SEND, RECV) and
// tcp:<port>; the Server adds forwards. Both hand a test the device ready
// for use, as httptest.Server.Client hands it a client: Server.Open, and
// ADB.Serve for a device the stock server joins. A Device can be a
// *simdevice.Device or a data-literal FakeDevice:
//
//	dev := &adbtest.FakeDevice{
//		SerialNo: "sim-1",
//		Commands: map[string]adbtest.FakeResult{"pidof com.example": {Stdout: "4242\n"}},
//	}
//	srv := adbtest.NewServer(dev)
//	defer srv.Close()
//	d := srv.Open("sim-1") // an *adbx.Device; other clients dial srv.Addr
//
// The wire format both endpoints speak is internal/adbwire's, the one adbx
// speaks too. The package imports adbx and internal/adbwire (and
// internal/testenv, to find the adb binary), not simdevice: a simulated
// phone comes in through the Device interface, so the phone never depends
// on the server that serves it.
package adbtest
