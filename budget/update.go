package budget

import (
	"flag"
	"os"
	"testing"
)

// EnvUpdate names the variable that rewrites golden budget files like
// -update does: PERFGATE_UPDATE=1. PERFGATE_UPDATE=loosen also lets a
// rewrite loosen a budget; nothing else does.
const EnvUpdate = "PERFGATE_UPDATE"

// The -update flag is gotest.tools' (golden.Assert's), shared rather than
// registered twice: whichever package initialises first defines it as a
// flag.Bool, and the other looks it up, as gotest.tools'
// internal/source/update.go does. It is only defined inside test binaries,
// so a program that links this package keeps its flags to itself.
func init() {
	if flag.Lookup("update") == nil && testing.Testing() {
		flag.Bool("update", false, "update golden values")
	}
}

// Updating reports whether this test run rewrites golden budget files:
// the -update flag is set, or PERFGATE_UPDATE is 1, true or loosen. The
// variable lets `go test ./... -update` also run packages that do not link
// perfgate: set it instead of the flag there.
func Updating() bool {
	switch os.Getenv(EnvUpdate) {
	case "1", "true", "loosen":
		return true
	}
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	v, _ := g.Get().(bool)
	return v
}

// Loosening reports whether PERFGATE_UPDATE lets a rewrite loosen budgets.
func Loosening() bool { return os.Getenv(EnvUpdate) == "loosen" }
