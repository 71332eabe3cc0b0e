// Package callsite names the line of a user's code that called into
// perfgate, for a verdict to say where its budget came from.
package callsite

import (
	"runtime"
	"strconv"
	"strings"
)

// library are the packages whose frames are not the user's: perfgate's
// own (their tests aside) and the runtime's and testing's.
var library = []string{"github.com/perfgate/perfgate/assert.", "github.com/perfgate/perfgate/budget.",
	"github.com/perfgate/perfgate/perftest.", "github.com/perfgate/perfgate/scenario.", "runtime.", "testing."}

// Outside names, as "file.go:23", the first caller above skip frames
// (0: Outside's caller) that is not in perfgate's library packages; a
// frame of one of their test files counts as a user's. "" when none is.
func Outside(skip int) string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(skip+2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function != "" && (!isLibrary(f.Function) || strings.HasSuffix(f.File, "_test.go")) {
			file := f.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			return file + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

func isLibrary(fn string) bool {
	for _, p := range library {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
