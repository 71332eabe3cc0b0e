package devicepool_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/devicepool"
	"github.com/perfgate/perfgate/simlab"
)

// TestEach: a test fanned out over every device runs once on each, named
// after it; over one per model, once on a device of each model.
func TestEach(t *testing.T) {
	lab := simlab.Start(t, simlab.Lab{Phones: []simlab.Phone{
		{Model: "Pixel 8", API: 34, Count: 2, Serial: "p8"},
		{Model: "Pixel 4a", API: 30, Count: 2, Serial: "p4a"},
	}})
	p, err := devicepool.New(context.Background(), devicepool.Config{Servers: lab.Servers()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		perModel bool
		want     []string
	}{
		{false, []string{"Google_Pixel_4a/api30/p4a-1", "Google_Pixel_4a/api30/p4a-2", "Google_Pixel_8/api34/p8-1", "Google_Pixel_8/api34/p8-2"}},
		{true, []string{"Google_Pixel_4a/api30/p4a-1", "Google_Pixel_8/api34/p8-1"}},
	} {
		var mu sync.Mutex
		var got []string
		t.Run(fmt.Sprint("perModel=", tc.perModel), func(parent *testing.T) {
			p.Each(parent, tc.perModel, func(t *testing.T, m *devicepool.Member) {
				name := strings.TrimPrefix(t.Name(), parent.Name()+"/")
				if want := strings.ReplaceAll(fmt.Sprintf("%s/api%d/%s", m.Facts.Name(), m.Facts.API, m.Serial()), " ", "_"); name != want {
					t.Errorf("subtest %s holds %s", name, m)
				}
				mu.Lock()
				got = append(got, name)
				mu.Unlock()
			})
		})
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("perModel %v: ran on %v, want %v", tc.perModel, got, tc.want)
		}
	}
}
