package devicepool_test

import (
	"slices"
	"testing"

	"github.com/perfgate/perfgate/devicepool"
)

// Shards 1/n … n/n take every device exactly once, every n-th from the
// k-th.
func TestShardMembers(t *testing.T) {
	members := make([]*devicepool.Member, 7)
	for i := range members {
		members[i] = &devicepool.Member{}
	}
	for n := 1; n <= 8; n++ {
		var all []*devicepool.Member
		for k := 1; k <= n; k++ {
			shard := devicepool.ShardMembers(members, k, n)
			for j, m := range shard {
				if m != members[k-1+j*n] {
					t.Errorf("shard %d/%d: member %d is not device %d", k, n, j, k-1+j*n)
				}
			}
			all = append(all, shard...)
		}
		if len(all) != len(members) || slices.ContainsFunc(members, func(m *devicepool.Member) bool { return !slices.Contains(all, m) }) {
			t.Errorf("shards of %d do not take every device once: %d taken", n, len(all))
		}
	}
}
