package devicepool_test

import (
	"context"
	"testing"

	"github.com/perfgate/perfgate/devicepool"
)

func TestPick(t *testing.T) {
	srv := twoPhones(t)
	p, err := devicepool.New(context.Background(), devicepool.Config{Servers: []string{srv.Addr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		perModel bool
		k, n     int
		want     int
	}{{false, 1, 1, 2}, {true, 1, 1, 2}, {false, 2, 2, 1}} {
		got, err := p.Pick(tc.perModel, tc.k, tc.n)
		if err != nil || len(got) != tc.want {
			t.Errorf("Pick(%v, %d, %d) = %d devices, %v; want %d", tc.perModel, tc.k, tc.n, len(got), err, tc.want)
		}
	}
	if _, err := p.Pick(false, 3, 3); err == nil || err.Error() != "shard 3/3 of 2 devices is empty" {
		t.Errorf("an empty shard: %v", err)
	}
}
