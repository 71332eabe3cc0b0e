package assert_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/assert"
)

func TestRealTChild(t *testing.T) {
	if os.Getenv("PERFGATE_TEST_REAL_T") != "1" {
		t.Skip("runs as a child of TestRealTestingT")
	}
	assert.MaxJank(t, scrollStep(), 3)
	assert.MinFPS(t, scrollStep(), 60)
	t.Log("after the checks")
}
