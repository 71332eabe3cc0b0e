package result_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// Result files written by earlier versions read back equal: reading one
// and writing it again gives the same JSON, value for value. The file
// is of a scenario with a trace, stacks and verdicts, written by the
// version before the packages were split by what they read (78d9006).
func TestEarlierResultsReadBackEqual(t *testing.T) {
	for _, file := range []string{"testdata/result-78d9006.json"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			want := readJSON(t, file)
			r, err := result.ReadResult(file)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "again.json")
			if err := r.WriteFile(out); err != nil {
				t.Fatal(err)
			}
			got := readJSON(t, out)
			if !reflect.DeepEqual(got, want) {
				for _, d := range jsonDiff("", want, got) {
					t.Error(d)
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// jsonDiff lists where two JSON values differ, by path, at most 20.
func jsonDiff(path string, a, b any) []string {
	var out []string
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, then %T", path, a, b)}
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			av, aok := x[k]
			bv, bok := y[k]
			switch {
			case !aok:
				out = append(out, fmt.Sprintf("%s.%s: added %.80v", path, k, bv))
			case !bok:
				out = append(out, fmt.Sprintf("%s.%s: dropped %.80v", path, k, av))
			default:
				out = append(out, jsonDiff(path+"."+k, av, bv)...)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return []string{fmt.Sprintf("%s: %d items, then %v", path, len(x), len(y))}
		}
		for i := range x {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i])...)
		}
	default:
		if !reflect.DeepEqual(a, b) {
			out = append(out, fmt.Sprintf("%s: %v, then %v", path, a, b))
		}
	}
	if len(out) > 20 {
		out = out[:20]
	}
	return out
}
