package simdevice

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs the tests without the race detector's second of sleep at
// exit, and four parallel tests at once: they wait on their phones' real
// clock.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 4)) }
