package example_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain lets the examples on simulated phones run all at once: each
// mostly waits on its own phone.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 6)) }
