package simdevice

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/hprof"
)

// leakyFeed is the memory-leak preset whose scroll also keeps 400
// ImageHolders a second.
func leakyFeed(t *testing.T, debuggable bool) (*Device, *World) {
	t.Helper()
	wl := mustPreset(t, "memory-leak")
	wl.Debuggable = debuggable
	wl.Phases[0].Leak = &Leak{Class: "com.perfgate.demo.feed.ImageHolder", PerSecond: 400, Bytes: 48}
	d, err := New(Config{Workload: wl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	wlaunch(t, d.World())
	return d, d.World()
}

// am dumpheap returns before the dump is written; the file grows in
// pieces, holds still half-way, and the app logs when it is whole. The
// whole file's histogram is the truth of the heap it dumped, the leaking
// class's count included.
func TestAmDumpheap(t *testing.T) {
	t.Parallel()
	d, w := leakyFeed(t, true)
	w.Skip(3 * time.Second) // launch, and scroll for a while: it leaks
	const file = "/data/local/tmp/h.hprof"
	pid := w.Truth().Pids[0]
	var o, e bytes.Buffer
	if code := w.Am(context.Background(), []string{"dumpheap", strconv.Itoa(pid), file}, &o, &e); code != 0 {
		t.Fatalf("am dumpheap: %d %q %q", code, o.String(), e.String())
	}
	dumps := w.TruthDumps()
	if len(dumps) != 1 || dumps[0].File != file || dumps[0].PID != pid {
		t.Fatalf("truth of the dumps %+v", dumps)
	}
	truth := dumps[0].Classes
	if b, _ := d.fs.ReadFile(file); len(b) != 0 {
		t.Errorf("the file holds %d bytes as am returns; the app writes it later", len(b))
	}
	deadline := time.Now().Add(20 * time.Second)
	for !w.logHas(pid, "hprof: heap dump completed") {
		if time.Now().After(deadline) {
			t.Fatal("no \"heap dump completed\" in the log in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b, err := d.fs.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	h, err := hprof.ReadHistogram(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var leak int64
	for _, c := range truth {
		got, _ := h.Class(c.Name)
		if got.Instances != c.Instances || got.ShallowBytes != c.ShallowBytes {
			t.Errorf("%s: %+v, truth %+v", c.Name, got, c)
		}
		if strings.HasSuffix(c.Name, "ImageHolder") {
			leak = c.Instances
		}
	}
	if leak == 0 || len(h.Classes) != len(truth) {
		t.Errorf("%d ImageHolders leaked; %d classes, truth %d", leak, len(h.Classes), len(truth))
	}
}

// A release build refuses a heap dump, as Android does.
func TestAmDumpheapNotDebuggable(t *testing.T) {
	t.Parallel()
	_, w := leakyFeed(t, false)
	var o, e bytes.Buffer
	code := w.Am(context.Background(), []string{"dumpheap", PresetPackage, "/data/local/tmp/h.hprof"}, &o, &e)
	if code == 0 || !strings.Contains(e.String(), "java.lang.SecurityException: Process not debuggable") {
		t.Errorf("am dumpheap of a release build: %d %q", code, e.String())
	}
}

// logHas reports whether pid logged a line containing s.
func (w *World) logHas(pid int, s string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	for _, l := range w.logs {
		if l.pid == pid && strings.Contains(l.msg, s) {
			return true
		}
	}
	return false
}
