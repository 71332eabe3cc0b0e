package procfs

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

// memFuzzAddFixtures seeds a fuzz target with captures from the corpus.
// Unlike fixtures.Read it does not skip the target when the corpus is
// absent: the hand-written seeds in testdata/fuzz still run (CI sets
// PERFGATE_REQUIRE_FIXTURES=1 to make a missing corpus fail instead).
func memFuzzAddFixtures(f *testing.F, names ...string) {
	f.Helper()
	if _, err := fixtures.Root(); err != nil {
		if os.Getenv("PERFGATE_REQUIRE_FIXTURES") == "1" {
			fixtures.Dir(f)
		}
		return
	}
	for _, name := range names {
		f.Add(fixtures.Read(f, name))
	}
}
