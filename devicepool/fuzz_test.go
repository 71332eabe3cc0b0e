package devicepool_test

import (
	"testing"

	"github.com/perfgate/perfgate/devicepool"
)

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"servers": ["lab-1:5037"], "filter": {"models": ["Pixel 7"], "min_api": 30, "serial": "sim-*"}, "wait": "1m"}`))
	f.Add([]byte(`{"servers": ["a:1"], "servers": ["b:2"]}`))
	f.Add([]byte(`{"wait": "-1s"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := devicepool.ParseConfig("pool.json", b)
		if err != nil {
			if len(err.Error()) > 600 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if c.Wait < 0 || c.Timeout < 0 || c.Filter.MaxAPI > 0 && c.Filter.MaxAPI < c.Filter.MinAPI {
			t.Errorf("accepted %+v", c)
		}
		for _, s := range c.Servers {
			if _, err := devicepool.ServerAddr(s); err != nil {
				t.Errorf("accepted server %q: %v", s, err)
			}
		}
	})
}

func FuzzParseShard(f *testing.F) {
	f.Add("2/4")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		k, n, err := devicepool.ParseShard(s)
		if err == nil && (k < 1 || k > n) {
			t.Errorf("%q: %d/%d", s, k, n)
		}
	})
}
