package simdevice

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/hprofw"
	"github.com/perfgate/perfgate/simdevice/internal/vfs"
)

// Leak makes a phase leak: while it runs, the app keeps PerSecond new
// instances of Class a second and never lets them go, each of Bytes field
// bytes (its shallow size in a heap dump). The Java heap dumpsys meminfo
// shows grows by exactly those bytes, and `am dumpheap` writes them.
type Leak struct {
	Class     string  `json:"class"`
	PerSecond float64 `json:"per_second"`
	Bytes     int     `json:"bytes"`
}

// validate checks the leak of the phase at path f.
func (l *Leak) validate(f string) error {
	switch {
	case l == nil:
		return nil
	case !validClassName(l.Class):
		return badField(f+".leak.class", "%q is not a Java class name", l.Class)
	case l.PerSecond <= 0 || l.PerSecond > 1e5:
		return badField(f+".leak.per_second", "%g out of range (0, 100000]", l.PerSecond)
	case l.Bytes < 4 || l.Bytes > 1<<16:
		return badField(f+".leak.bytes", "%d out of range 4..65536", l.Bytes)
	}
	return nil
}

func validClassName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") != "" || p[0] >= '0' && p[0] <= '9' {
			return false
		}
	}
	return true
}

// heapState is what the app's heap holds beyond its steady classes, and
// the dumps written so far.
type heapState struct {
	pid    int
	leaked map[string]float64 // class → instances kept so far
	bytes  map[string]int     // class → field bytes of each
	dumps  []TruthDump
}

// TruthDump is a heap dump `am dumpheap` wrote: the file, the process, and
// the heap it holds, class by class, as its histogram counts it (byte[]
// by its arrays).
type TruthDump struct {
	File    string
	PID     int
	Classes []TruthClass
}

// TruthDumps lists the heap dumps written so far, in order.
func (w *World) TruthDumps() []TruthDump {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.heap == nil {
		return nil
	}
	return append([]TruthDump(nil), w.heap.dumps...)
}

// leakLocked lets phase p leak for dt seconds.
func (w *World) leakLocked(p *Phase, dt float64) {
	a := w.app
	if p.Leak == nil || a == nil {
		return
	}
	w.heapOfLocked(a.pid)
	l := p.Leak
	before := math.Floor(w.heap.leaked[l.Class])
	w.heap.leaked[l.Class] += l.PerSecond * dt
	w.heap.bytes[l.Class] = l.Bytes
	a.javaKiB += (math.Floor(w.heap.leaked[l.Class]) - before) * float64(l.Bytes) / 1024
}

// heapOfLocked makes w.heap the heap of process pid: a new process starts
// with nothing leaked.
func (w *World) heapOfLocked(pid int) *heapState {
	switch {
	case w.heap == nil:
		w.heap = &heapState{}
	case w.heap.pid == pid:
		return w.heap
	}
	w.heap.pid, w.heap.leaked, w.heap.bytes = pid, map[string]float64{}, map[string]int{}
	return w.heap
}

// TruthClass is one class of the app's heap as a dump holds it.
type TruthClass struct {
	Name         string
	Instances    int64
	ShallowBytes int64
}

// steadyHeap is what every app's heap holds whatever it does: the same in
// every dump of one process.
var steadyHeap = []hprofw.Class{
	{Name: "java.lang.String", Instances: 400, FieldBytes: 16},
	{Name: "java.util.HashMap$Node", Instances: 150, FieldBytes: 28},
	{Name: "android.view.View", Instances: 60, FieldBytes: 120},
	{Name: "java.lang.ref.WeakReference", Instances: 80, FieldBytes: 20},
}

// truthOf is heaps class by class.
func truthOf(heaps []hprofw.Heap) []TruthClass {
	var out []TruthClass
	for _, h := range heaps {
		for _, c := range h.Classes {
			out = append(out, TruthClass{c.Name, int64(c.Instances), int64(c.Instances * c.FieldBytes)})
		}
		if n := len(h.ByteArrays); n > 0 {
			var b int64
			for _, x := range h.ByteArrays {
				b += int64(x)
			}
			out = append(out, TruthClass{"byte[]", int64(n), b})
		}
	}
	return out
}

// heapLocked is the app's heaps as a dump now writes them.
func (w *World) heapLocked() []hprofw.Heap {
	if w.app == nil {
		return nil
	}
	zygote := hprofw.Heap{ID: 'Z', Name: "zygote", Classes: []hprofw.Class{{Name: "java.lang.Class", Instances: 30, FieldBytes: 24}}}
	app := hprofw.Heap{ID: 'A', Name: "app", Classes: append([]hprofw.Class(nil), steadyHeap...), ByteArrays: []int{64, 512, 4096}}
	if h := w.heap; h != nil && h.pid == w.app.pid {
		for _, name := range sortedKeys(h.leaked) {
			if n := int(math.Floor(h.leaked[name])); n > 0 {
				app.Classes = append(app.Classes, hprofw.Class{Name: name, Instances: n, FieldBytes: h.bytes[name]})
			}
		}
	}
	return []hprofw.Heap{zygote, app}
}

func sortedKeys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// amDumpheap runs `am dumpheap [--user U] [-g] [-n|-m] PROCESS FILE`. As on
// Android before 11, am returns as soon as the app was asked: the app's
// runtime writes the file afterwards, in pieces, pausing half-way (a size
// that holds still for a while is no sign the dump is whole), and logs
// "hprof: heap dump completed" once it closed the file. A dump of a
// process that is not debuggable is refused (as root, any may be dumped);
// -n and -m (native heap) are refused as this phone has no native dumps.
func (w *World) amDumpheap(args []string, stdout, stderr io.Writer) int {
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--user":
			i++
		case a == "-g":
		case a == "-n" || a == "-m":
			fmt.Fprintln(stderr, "Error: native heap dumps are not supported on this device")
			return 255
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "Error: Unknown option: %s\n", a)
			return 255
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) != 2 {
		fmt.Fprintln(stderr, "Error: no process or file specified")
		return 255
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	a, code := w.debuggableAppLocked(rest[0], func(e string) int { return amDumpException(stderr, e) })
	if a == nil {
		return code
	}
	file := vfs.Clean(rest[1], "/")
	if w.files == nil || w.files.WriteFile(file, nil, 0o644, w.wallLocked(), false) != nil {
		fmt.Fprintf(stderr, "Error: Unable to open file: %s\nConsider using a file under /data/local/tmp/\n", rest[1])
		return 1
	}
	if w.cfg.API >= 29 {
		fmt.Fprintf(stdout, "File: %s\n", rest[1])
	}
	heaps := w.heapLocked()
	objects := 0
	for _, h := range heaps {
		objects += len(h.ByteArrays)
		for _, c := range h.Classes {
			objects += c.Instances
		}
	}
	data := hprofw.Write(w.wallLocked().UnixMilli(), heaps)
	hs := w.heapOfLocked(a.pid)
	hs.dumps = append(hs.dumps, TruthDump{File: file, PID: a.pid, Classes: truthOf(heaps)})
	w.logLocked(w.now, a.pid, a.pid, 'I', w.hprofTag(), fmt.Sprintf("hprof: heap dump \"%s\" starting...", file))
	go w.writeDump(a.pid, file, data, objects)
	return 0
}

// debuggableAppLocked is the app's process that an `am` command names
// (by package or pid), when the shell may act on it: a debuggable app, or
// any as root. Otherwise it is nil, with the exit code of the exception
// am prints through exception.
func (w *World) debuggableAppLocked(proc string, exception func(string) int) (*appProc, int) {
	a := w.app
	if a == nil || (proc != w.wl.Package && proc != strconv.Itoa(a.pid)) {
		return nil, exception("java.lang.IllegalArgumentException: Unknown process: " + proc)
	}
	if !w.wl.Debuggable && !w.cfg.Root {
		return nil, exception(fmt.Sprintf("java.lang.SecurityException: Process not debuggable: ProcessRecord{%s %d:%s/u0a%d}",
			identityHash(a.pid, "ProcessRecord"), a.pid, w.wl.Package, w.wl.UID-10000))
	}
	return a, 0
}

func amDumpException(stderr io.Writer, exception string) int {
	fmt.Fprintf(stderr, "Exception occurred while executing 'dumpheap':\n%s\n\tat com.android.server.am.ActivityManagerService.dumpHeap(ActivityManagerService.java:18412)\n\tat com.android.server.am.ActivityManagerShellCommand.runDumpHeap(ActivityManagerShellCommand.java:1139)\n", exception)
	return 255
}

// hprofTag is the tag ART logs under: "art" before Android 8, the
// process's name since.
func (w *World) hprofTag() string {
	if w.cfg.API < 26 {
		return "art"
	}
	return w.wl.Package
}

// writeDump writes data into file in eight pieces 40 ms apart (device
// time), with a 400 ms pause after the fourth, then logs the dump done. It
// runs after am returned and finishes whatever the shell does, as the
// app's runtime does.
func (w *World) writeDump(pid int, file string, data []byte, objects int) {
	const pieces = 8
	start := time.Now()
	for i := 1; i <= pieces; i++ {
		d := 40 * time.Millisecond
		if i == pieces/2+1 {
			d = 400 * time.Millisecond
		}
		time.Sleep(time.Duration(float64(d) / w.speed))
		w.mu.Lock()
		w.advanceLocked()
		w.files.WriteFile(file, data[:len(data)*i/pieces], 0o644, w.wallLocked(), false)
		if i == pieces {
			took := time.Duration(float64(time.Since(start)) * w.speed)
			w.logLocked(w.now, pid, pid, 'I', w.hprofTag(), fmt.Sprintf("hprof: heap dump completed (%dKB) in %.3fms objects %d objects with stack traces 0",
				(len(data)+1023)/1024, float64(took)/1e6, objects))
		}
		w.mu.Unlock()
	}
}

// wallLocked is Wall for a caller holding w.mu.
func (w *World) wallLocked() time.Time { return w.bootWall.Add(time.Duration(w.now)).UTC() }
