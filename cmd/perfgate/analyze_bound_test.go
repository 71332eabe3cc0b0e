package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/analyze"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// longLineFile writes a capture that is one line of size bytes: digits
// for its first 2 MiB, then a hole the file system reads as NUL bytes, so
// a GiB costs no disk.
func longLineFile(tb testing.TB, size int64) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "one-line.txt")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	digits := bytes.Repeat([]byte("0123456789"), (2<<20)/10)
	if _, err := f.Write(digits); err != nil {
		tb.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// analyzeCommands are every `perfgate analyze` subcommand that reads text,
// with file standing for the capture.
func analyzeCommands(small string) map[string]func(file string) []string {
	return map[string]func(string) []string{
		"frames":                func(f string) []string { return []string{"analyze", "frames", f} },
		"frames gfxinfo":        func(f string) []string { return []string{"analyze", "frames", "-source", "gfxinfo", f} },
		"frames surfaceflinger": func(f string) []string { return []string{"analyze", "frames", "-source", "surfaceflinger", f} },
		"meminfo":               func(f string) []string { return []string{"analyze", "meminfo", f} },
		"cpu":                   func(f string) []string { return []string{"analyze", "cpu", small, f} },
	}
}

// smallCPU writes a good /proc/stat sample, the BEFORE of `analyze cpu`.
func smallCPU(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "before.txt")
	if err := os.WriteFile(path, []byte("cpu  1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Every analyze subcommand refuses a 1 GiB capture of one line once the
// line passes devtext.MaxLine: the error names the file, the line and
// quotes a bounded start of it, and the command has allocated a few MiB.
// (Not parallel: it reads the process's allocation count.)
func TestAnalyzeLongLine(t *testing.T) {
	big := longLineFile(t, 1<<30)
	for name, args := range analyzeCommands(smallCPU(t)) {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := run(args(big), io.Discard, io.Discard)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("a 1 GiB line was accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, big+": ") || !strings.Contains(msg, ": line 1: longer than 1048576 bytes") ||
				!strings.Contains(msg, `"0123456789`) || excerpt.Check(strings.Replace(msg, big, "FILE", 1)) != nil {
				t.Errorf("%d-byte error: %.400s", len(msg), msg)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB for a capture of one 1 GiB line", alloc>>20)
			}
		})
	}
}

// meminfo and cpu read their captures whole, up to analyze.MaxCapture: a longer
// file of ordinary lines is refused at it, naming the file.
func TestAnalyzeCaptureTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.txt")
	line := []byte("  unrelated line of ordinary device text 12345 67890\n")
	if err := os.WriteFile(path, bytes.Repeat(line, analyze.MaxCapture/len(line)+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"analyze", "meminfo", path}, {"analyze", "cpu", smallCPU(t), path}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := run(args, io.Discard, io.Discard)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), "more than 16777216 bytes") {
			t.Errorf("%s: %v", args[1], err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 {
			t.Errorf("%s: allocated %d MiB for a %d MiB file", args[1], alloc>>20, (analyze.MaxCapture+len(line))>>20)
		}
	}
}

// analyze trace reads a trace as a stream of packets, each at most
// trace.DefaultMaxPacket: a 1 GiB file that is one packet (its length
// says 1 GiB) is refused at the packet's length, having allocated a few
// MiB, and so is a 1 GiB file of one line of text.
func TestAnalyzeTraceOneHugePacket(t *testing.T) {
	onePacket := filepath.Join(t.TempDir(), "one-packet.perfetto-trace")
	f, err := os.Create(onePacket)
	if err != nil {
		t.Fatal(err)
	}
	// Field 1 (packet), length-delimited, length 1 GiB − 16 as a varint.
	head := append([]byte{0x0a}, binary.AppendUvarint(nil, 1<<30-16)...)
	if _, err := f.Write(head); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{onePacket, longLineFile(t, 1<<30)} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := run([]string{"analyze", "trace", file}, io.Discard, io.Discard)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), file+": ") || excerpt.Check(strings.Replace(err.Error(), file, "FILE", 1)) != nil {
			t.Errorf("%s: %v", filepath.Base(file), err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: allocated %d MiB for a 1 GiB file", filepath.Base(file), alloc>>20)
		}
	}
}
