package report_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/testenv"
)

// TestMain runs four tests at once: the tests that record sessions on
// simulated phones, or wait on a headless browser, mostly wait.
func TestMain(m *testing.M) { os.Exit(testenv.RunWaiting(m, 4)) }
