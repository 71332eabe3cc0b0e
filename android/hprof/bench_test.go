package hprof_test

import (
	"bytes"
	"testing"

	"github.com/perfgate/perfgate/android/hprof"
)

// BenchmarkReadHistogram reads the real Android dump (3.7 MB): the reader
// streams, so its allocations stay a fraction of the dump's size
// whatever the dump's size (the strings and class table aside).
func BenchmarkReadHistogram(b *testing.B) {
	data := gunzip(b, realDump)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hprof.ReadHistogram(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
