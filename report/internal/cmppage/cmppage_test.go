package cmppage

import (
	"math"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// A link from a page folder to a file elsewhere is the relative path,
// escaped so that a browser resolving it against the page's file URL
// reaches the file: checked by resolving it so and reading the file.
func TestHrefResolves(t *testing.T) {
	root := t.TempDir()
	name := "a b #1 100%?.perfetto-trace"
	file := filepath.Join(root, "results dir", name)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pageDir := range []string{filepath.Join(root, "pages", "deep"), filepath.Join(root, "results dir"), root, ""} {
		h := string(Href(pageDir, file))
		base := &url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(pageDir, "page.html"))}
		u, err := base.Parse(h)
		if err != nil {
			t.Fatalf("page in %q: href %q: %v", pageDir, h, err)
		}
		if got := filepath.FromSlash(u.Path); got != file || u.Fragment != "" || u.RawQuery != "" {
			t.Errorf("page in %q: href %q leads to %q (fragment %q, query %q), want %q", pageDir, h, got, u.Fragment, u.RawQuery, file)
		}
	}
}

// A count's scale has whole ticks only, from 0 to at least the largest
// value; a 0 → 1 count is not drawn on 0 … 1.05.
func TestScaleCounts(t *testing.T) {
	for _, vals := range [][]float64{{0, 1}, {0, 5}, {0, 0}, {3, 17}, {0, 0.3}, {math.NaN(), 2}} {
		s := NewScale(vals, true)
		if s.Lo != 0 || len(s.Ticks) < 2 {
			t.Errorf("%v: scale %+v", vals, s)
		}
		for _, tk := range s.Ticks {
			if tk != math.Trunc(tk) || tk < s.Lo || tk > s.Hi {
				t.Errorf("%v: tick %v of %+v", vals, tk, s)
			}
		}
		for _, v := range vals {
			if v > s.Hi {
				t.Errorf("%v: %v beyond the scale %+v", vals, v, s)
			}
		}
	}
	if s := NewScale([]float64{16.0, 16.05}, false); s.Lo != 0 || s.Hi < 16.05 || s.Hi > 20 {
		t.Errorf("frame time scale %+v: not from 0", s)
	}
}
