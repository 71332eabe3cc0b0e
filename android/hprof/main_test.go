package hprof_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs the tests without the race detector's second of sleep at
// exit.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
