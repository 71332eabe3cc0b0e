package example_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/testenv"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
)

// TestMain gives every session the reporters (reports into
// $PERFGATE_REPORT, the history in $PERFGATE_HISTORY, each when set), and
// lets the examples on simulated phones run all at once: each mostly waits
// on its own phone.
func TestMain(m *testing.M) {
	perftest.UseReporters(report.Reporter, history.Reporter)
	os.Exit(testenv.RunWaiting(m, 6))
}
