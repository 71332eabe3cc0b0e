package dumpsys

import (
	"errors"
	"strings"
	"testing"
)

// gpuDump is `dumpsys gpu` as GpuService prints it with its GpuMem block
// (AOSP frameworks/native/services/gpuservice/gpumem/GpuMem.cpp, dump()):
// the driver lines first, a GPU whose global total is known and one
// whose is not, imported sizes where the kernel tracks them.
const gpuDump = "Stable Game Driver: unsupported\r\nPre-release Game Driver: unsupported\r\n\r\n" +
	"Memory snapshot for GPU 0:\r\nGlobal total: 2639089664, imported: 0\r\nProc 778 total: 628928512, imported: 4096\r\nProc 29697 total: 154370048, imported: 0\r\n" +
	"Memory snapshot for GPU 1:\r\nGlobal total: N/A\r\nProc 29697 total: 1048576\r\n"

func TestParseGPUMem(t *testing.T) {
	g, err := ParseGPUMem([]byte(gpuDump))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.GPUs) != 2 || !g.GPUs[0].HasGlobal || g.GPUs[0].GlobalBytes != 2639089664 || g.GPUs[1].HasGlobal {
		t.Errorf("snapshots %+v", g.GPUs)
	}
	if n, ok := g.ProcessBytes(29697); !ok || n != 154370048+1048576 {
		t.Errorf("pid 29697: %d, %v", n, ok)
	}
	if _, ok := g.ProcessBytes(1); ok {
		t.Error("pid 1 is not listed")
	}
	for _, tc := range []struct {
		in, want    string
		unavailable bool
	}{
		{"GPU memory total usage is not available\n", "no GPU memory totals", true},
		{"GPU memory total usage map is empty\n", "no GPU memory totals", true},
		{"Stable Game Driver: unsupported\n", "no \"Memory snapshot for GPU\" block", false},
		{"Memory snapshot for GPU 0:\nProc 12 total: lots\n", `line 2: want "Proc <pid> total: <bytes>": "Proc 12 total: lots"`, false},
		{"Memory snapshot for GPU x:\n", `want "Memory snapshot for GPU <id>:"`, false},
		{"Memory snapshot for GPU 0:\nGlobal total: -5\n", "global total is not a byte count", false},
	} {
		_, err := ParseGPUMem([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), GPUMemSource) || errors.Is(err, ErrGPUMemUnavailable) != tc.unavailable {
			t.Errorf("%q: %v, want %q (unavailable %v)", tc.in, err, tc.want, tc.unavailable)
		}
	}
}

func FuzzParseGPUMem(f *testing.F) {
	f.Add([]byte(gpuDump))
	f.Add([]byte("GPU memory total usage is not available\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGPUMem(b)
		if err != nil {
			return
		}
		for _, s := range g.GPUs {
			for pid, n := range s.Procs {
				if pid <= 0 || n < 0 {
					t.Fatalf("pid %d: %d bytes", pid, n)
				}
			}
		}
	})
}
