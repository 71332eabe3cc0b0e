package heapview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/hprof"
	"github.com/perfgate/perfgate/result"
)

// Both dumps are linked from the page's folder to the files beside the
// Result, with their totals, and the classes that grew are listed with
// the Result's own figures, the biggest first.
func TestHeapDumps(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"s.heap-first.hprof", "s.heap-last.hprof"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("JAVA PROFILE 1.0.3"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &result.Result{Path: filepath.Join(dir, "s.json"), HeapDumps: &result.HeapDumps{
		First: &result.HeapDump{File: "s.heap-first.hprof", Bytes: 3 << 20, PID: 4242, Classes: 1234, Instances: 56789, ShallowBytes: 2 << 20},
		Last:  &result.HeapDump{File: "s.heap-last.hprof", Bytes: 5 << 20, PID: 4242, Classes: 1240, Instances: 60000, ShallowBytes: 4 << 20},
		Grew: []hprof.Growth{{Class: "com.example.feed.ImageHolder", Instances: 1200, ShallowBytes: 57600, Before: 3, After: 1203},
			{Class: "byte[]", Instances: -2, ShallowBytes: 1 << 20, Before: 10, After: 8}},
	}}
	got := string(HTML(r, dir))
	for _, want := range []string{
		`<td><a href="s.heap-first.hprof"><code>s.heap-first.hprof</code></a></td><td class="num">3.0 MiB</td><td class="num">4242</td><td class="num">1,234</td><td class="num">56,789</td><td class="num">2.0 MiB</td>`,
		`<td><a href="s.heap-last.hprof"><code>s.heap-last.hprof</code></a></td><td class="num">5.0 MiB</td>`,
		`<tr><td><code>com.example.feed.ImageHolder</code></td><td class="num">&#43;1,200</td><td class="num">3 → 1,203</td><td class="num">&#43;56.2 KiB</td></tr>`,
		`<tr><td><code>byte[]</code></td><td class="num">−2</td><td class="num">10 → 8</td><td class="num">&#43;1.0 MiB</td></tr>`,
		"grew between the heap dumps: &#43;1,200 com.example.feed.ImageHolder (&#43;56.2 KiB)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

// A session whose dumps were refused or cut short says why, in place of
// the missing dump and of the diff; one that took none shows nothing.
func TestHeapDumpsAbsent(t *testing.T) {
	note := "heap dumps: am dumpheap refused: the app is not debuggable"
	got := string(HTML(&result.Result{HeapDumps: &result.HeapDumps{Note: note}}, ""))
	if strings.Count(got, "<td colspan=\"6\">not taken: "+note+"</td>") != 2 || !strings.Contains(got, `<p class="notes heapdump-note">`+note) || strings.Contains(got, "heap-growth") {
		t.Errorf("refused dumps:\n%s", got)
	}
	same := &result.HeapDumps{First: &result.HeapDump{File: "a.hprof"}, Last: &result.HeapDump{File: "b.hprof"}}
	if got := string(HTML(&result.Result{HeapDumps: same}, "")); !strings.Contains(got, "No class grew between the dumps.") {
		t.Errorf("dumps without growth:\n%s", got)
	}
	if got := HTML(&result.Result{}, ""); got != "" {
		t.Errorf("no dumps: %s", got)
	}
}
