package adbx_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs four tests at once: most wait on a simulated phone of
// their own, or on a timeout.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 4)) }
