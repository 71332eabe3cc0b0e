package assert_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs four tests at once: the end-to-end tests' sessions each
// drive a simulated phone of their own and mostly wait on it.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 4)) }
