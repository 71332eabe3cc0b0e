package result

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ResultFiles lists the Result files paths name, a folder standing for the
// *.json files in it and its subfolders (a CI job's shards, one folder
// each) in name order, its *.json files of another schema (a budget file,
// a workload) passed over. It reads each file, hands it to fn and lets it
// go before the next, so a thousand Results are never all in memory. A file
// named itself that is not a Result, a folder without one, and fn's errors
// end the listing.
func ResultFiles(paths []string, fn func(path string, r *Result) error) ([]string, error) {
	var out []string
	for _, p := range paths {
		files := []string{p}
		walked := false
		if fi, err := os.Stat(p); err != nil {
			return nil, err
		} else if fi.IsDir() {
			files, err = jsonFiles(p)
			if err != nil {
				return nil, err
			}
			walked = true
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no *.json result files in the directory or its subfolders", p)
			}
		}
		n := len(out)
		for _, f := range files {
			r, err := ReadResult(f)
			if walked && errors.Is(err, ErrSchema) {
				continue // a folder's other JSON: a budget file, a workload
			}
			if err != nil {
				return nil, err
			}
			if err := fn(f, r); err != nil {
				return nil, err
			}
			out = append(out, f)
		}
		if walked && len(out) == n {
			return nil, fmt.Errorf("%s: no Result (schema %s) among the *.json files in the directory or its subfolders", p, Schema)
		}
	}
	return out, nil
}

// ReadResults reads the Results paths name, as ResultFiles finds them.
func ReadResults(paths []string) ([]*Result, error) {
	var out []*Result
	_, err := ResultFiles(paths, func(_ string, r *Result) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// jsonFiles lists the *.json files under dir, its subfolders too, in name
// order; hidden files and folders (a run's temporary files) are left out.
func jsonFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(name, ".json") {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}
