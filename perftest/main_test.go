package perftest_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs four tests at once: the simulated-phone tests each drive
// a phone of their own and mostly wait on it.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 4)) }
