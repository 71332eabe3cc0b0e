package scenario_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs three tests at once: each drives a simulated phone of its
// own and mostly waits on it.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 3)) }
