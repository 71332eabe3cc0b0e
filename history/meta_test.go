package history_test

import (
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/history"
)

func TestMetaOf(t *testing.T) {
	t.Setenv(history.EnvCommit, "abc1234")
	t.Setenv(history.EnvBranch, "main")
	t.Setenv(history.EnvAppVersion, "1.2")
	m := history.MetaOf([]string{filepath.Join(t.TempDir(), "r.json")}, history.Meta{ID: "run-1", Branch: "feature"})
	if m.ID != "run-1" || m.Commit != "abc1234" || m.Branch != "feature" || m.AppVersion != "1.2" {
		t.Errorf("MetaOf = %+v", m)
	}
}
