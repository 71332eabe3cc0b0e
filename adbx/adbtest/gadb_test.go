package adbtest

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/electricbubble/gadb"
)

// gadbDevice is a device with files, commands and an echo port.
func gadbDevice(serial string) *FakeDevice {
	d := testDevice(serial)
	mtime := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	d.Files = fstest.MapFS{
		"sdcard/notes.txt":        {Data: []byte("hello\n"), Mode: 0o660, ModTime: mtime},
		"sdcard/Download/a.bin":   {Data: pattern(70000), Mode: 0o660, ModTime: mtime},
		"data/local/tmp":          {Mode: fs.ModeDir | 0o771, ModTime: mtime},
		"proc/self/stat-readonly": {Data: []byte("1 (init) S"), Mode: 0o444, ModTime: mtime},
	}
	return d
}

// exerciseGadb drives one device through gadb, against either endpoint.
func exerciseGadb(t *testing.T, port int, serial string) {
	client, err := gadb.NewClientWith("127.0.0.1", port)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := client.ServerVersion(); err != nil || v != 41 {
		t.Errorf("ServerVersion = %d, %v; want 41", v, err)
	}
	devices, err := client.DeviceList()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(devices, func(d gadb.Device) bool { return d.Serial() == serial })
	if i < 0 {
		t.Fatalf("DeviceList has no %s: %v", serial, devices)
	}
	dev := devices[i]
	if model, err := dev.Model(); err != nil || model != "Fake_Phone" {
		t.Errorf("Model = %q, %v; want Fake_Phone", model, err)
	}
	if st, err := dev.State(); err != nil || st != gadb.StateOnline {
		t.Errorf("State = %v, %v; want online", st, err)
	}

	t.Run("RunShellCommand", func(t *testing.T) {
		out, err := dev.RunShellCommand("echo", "hi")
		if err != nil || out != "hi\n" {
			t.Errorf("echo hi = %q, %v", out, err)
		}
		// gadb uses the v1 shell, where stderr joins stdout.
		out, err = dev.RunShellCommand("split")
		if err != nil || out != "to stdout\nto stderr\n" {
			t.Errorf("split = %q, %v", out, err)
		}
	})

	t.Run("Push and Pull", func(t *testing.T) {
		content := pattern(1<<20 + 12345)
		mtime := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		if err := dev.Push(bytes.NewReader(content), "/data/local/tmp/blob.bin", mtime); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := dev.Pull("/data/local/tmp/blob.bin", &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), content) {
			t.Errorf("pulled %d bytes, pushed %d (or they differ)", got.Len(), len(content))
		}
		got.Reset()
		if err := dev.Pull("/sdcard/nope", &got); err == nil {
			t.Errorf("pulling a missing file succeeded")
		}
	})

	t.Run("List", func(t *testing.T) {
		entries, err := dev.List("/sdcard")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, fmt.Sprintf("%s %v %d %d", e.Name, e.IsDir(), e.Size, e.LastModified.Unix()))
		}
		want := []string{"Download true 0 0", "notes.txt false 6 1709294400"}
		if !slices.Equal(names, want) {
			t.Errorf("List(/sdcard) = %q, want %q", names, want)
		}
	})

	t.Run("Forward", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		local := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if err := dev.Forward(local, 6790); err != nil {
			t.Fatal(err)
		}
		fl, err := dev.ForwardList()
		if err != nil {
			t.Fatal(err)
		}
		want := gadb.DeviceForward{Serial: serial, Local: "tcp:" + strconv.Itoa(local), Remote: "tcp:6790"}
		if !slices.Contains(fl, want) {
			t.Errorf("ForwardList = %v, want it to hold %v", fl, want)
		}
		conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(local))
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(conn, "ping"); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping" {
			t.Errorf("echo through the forward = %q, %v", buf, err)
		}
		conn.Close()
		if err := dev.ForwardKill(local); err != nil {
			t.Fatal(err)
		}
		fl, err = dev.ForwardList()
		if err != nil || slices.Contains(fl, want) {
			t.Errorf("after ForwardKill ForwardList = %v, %v", fl, err)
		}
	})
}

func TestGadbServer(t *testing.T) {
	dev := gadbDevice("sim-1")
	s := NewServer(dev, testDevice("other"))
	defer s.Close()
	exerciseGadb(t, s.Port(), "sim-1")
	if f, ok := dev.Files["data/local/tmp/blob.bin"]; !ok || f.ModTime.Unix() != time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Unix() || f.Mode != 0o664 {
		t.Errorf("pushed file on the device: %+v", f)
	}
}

func TestGadbStockADB(t *testing.T) {
	dev := gadbDevice("ignored")
	d := NewAdbd(dev)
	defer d.Close()
	adb := StartADB(t)
	serial := adb.Connect(d.Addr)
	exerciseGadb(t, adb.Port, serial)
	if !strings.HasPrefix(serial, "127.0.0.1:") {
		t.Errorf("serial %q", serial)
	}
}
