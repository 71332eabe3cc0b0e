package history

import (
	"os"
	"path/filepath"
)

// MetaOf describes the build the Results at paths measured: MetaFromEnv
// in the folder of the first path (the path itself when it is a folder),
// each field over sets winning; the ID is over's.
func MetaOf(paths []string, over Meta) Meta {
	dir := "."
	if len(paths) > 0 {
		dir = filepath.Dir(paths[0])
		if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() {
			dir = paths[0]
		}
	}
	m := MetaFromEnv(dir)
	m.ID = over.ID
	for _, f := range []struct{ over, meta *string }{{&over.Commit, &m.Commit}, {&over.Branch, &m.Branch}, {&over.AppVersion, &m.AppVersion}} {
		if *f.over != "" {
			*f.meta = *f.over
		}
	}
	return m
}
