package devicepool

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/excerpt"
)

// TB is the part of testing.TB a lease uses.
type TB interface {
	Helper()
	Name() string
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Lease leases a free device for the rest of t: it waits while every
// device is busy (at most Config.Wait, then fails t), and gives the device
// back when t ends. A device that disappeared during t fails t with an
// error naming it and leaves the pool. t.Parallel tests get different
// devices, the least used first.
//
// Call Lease before perftest.Start: cleanups run last-in first-out, so the
// session stops, and writes its Result, before the device goes back.
func (p *Pool) Lease(t TB) *Member {
	t.Helper()
	return p.lease(t, nil)
}

// LeaseWhere is Lease of a device want accepts.
func (p *Pool) LeaseWhere(t TB, want func(*Member) bool) *Member {
	t.Helper()
	return p.lease(t, want)
}

func (p *Pool) lease(t TB, want func(*Member) bool) *Member {
	t.Helper()
	m, err := p.Acquire(context.Background(), t.Name(), want)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		if err := p.Release(m); err != nil {
			t.Errorf("%v", err)
		}
	})
	return m
}

// Each runs fn as a parallel subtest of t on every device of the pool, or
// with perModel on one device of each model (PerModel). Each subtest is
// named after its device ("Google_Pixel_7/api33/sim-3") and holds a lease on
// it; `go test -parallel n` bounds how many run at once, and a device busy
// with another test is waited for.
func (p *Pool) Each(t *testing.T, perModel bool, fn func(t *testing.T, m *Member)) {
	t.Helper()
	ms := p.Members()
	if perModel {
		ms = p.PerModel()
	}
	for _, m := range ms {
		name := fmt.Sprintf("%s/api%d/%s", m.name(), m.Facts.API, m.Serial())
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := p.LeaseWhere(t, func(x *Member) bool { return x == m })
			fn(t, got)
		})
	}
}

// EnvShard names the shard of a suite a CI job runs: "k/n" runs shard k
// (1..n) of n.
const EnvShard = "PERFGATE_SHARD"

// Shard skips t unless it belongs to the shard $PERFGATE_SHARD ("k/n")
// names; without the variable every test runs. A test's shard follows from
// its name alone, so n jobs given 1/n … n/n run every test exactly once,
// whatever order or machine each runs on. A malformed value fails t.
func Shard(t interface {
	Helper()
	Name() string
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}) {
	t.Helper()
	k, n, err := ParseShard(os.Getenv(EnvShard))
	if err != nil {
		t.Fatalf("devicepool: $%s: %v", EnvShard, err)
		return
	}
	if n > 1 && ShardOf(t.Name(), n) != k {
		t.Skipf("devicepool: in shard %d of %d, not %s=%d/%d", ShardOf(t.Name(), n), n, EnvShard, k, n)
	}
}

// ShardOf is the shard (1..n) of the test named name: its top-level test's
// name hashed, so subtests stay with their parent.
func ShardOf(name string, n int) int {
	top, _, _ := strings.Cut(name, "/")
	h := fnv.New32a()
	h.Write([]byte(top))
	return int(h.Sum32()%uint32(n)) + 1
}

// ParseShard reads "k/n" (1 ≤ k ≤ n); "" is shard 1 of 1.
func ParseShard(v string) (k, n int, err error) {
	if v == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(v, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n || n > 10000 {
		return 0, 0, fmt.Errorf("shard %s: want k/n with 1 ≤ k ≤ n, such as 2/4", excerpt.Quote(v))
	}
	return k, n, nil
}

// ShardMembers is shard k (1..n) of n of members, as ParseShard reads it:
// every n-th member from the k-th, so n CI jobs given 1/n … n/n split a
// lab's devices between them, each device in exactly one shard.
func ShardMembers(members []*Member, k, n int) []*Member {
	var out []*Member
	for i, m := range members {
		if i%n == k-1 {
			out = append(out, m)
		}
	}
	return out
}
