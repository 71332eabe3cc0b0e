package history

import (
	"context"
	"fmt"
	"strings"

	resultpkg "github.com/perfgate/perfgate/result"
)

// AddOptions say how AddFiles keeps Results.
type AddOptions struct {
	// Meta is every run's commit, branch and app version, and its id when
	// one Result is added.
	Meta Meta
	// ReportBase is where the Results' reports are, an http(s) URL or a
	// path relative to the trend pages' folder (SafeURL): a run links to
	// ReportBase/ReportPage(r).
	ReportBase string
	// Added, when not nil, hears of each file once it is in the history
	// (or already was), or once it is skipped.
	Added func(AddedFile)
}

// AddedFile is what AddFiles did with one Result file.
type AddedFile struct {
	Path string
	// Run is the run the file holds; nil when it was skipped, Skipped
	// saying why (the Result's error).
	Run     *Run
	Skipped string
	// New says the run was not in the history before.
	New bool
}

// Bounds of one transaction of AddFiles: this many runs, or values.
const (
	addBatchRuns   = 100
	addBatchValues = 10_000
)

// run is the Run r is, with its report's link.
func (o AddOptions) run(r *resultpkg.Result) Run {
	m := o.Meta
	if o.ReportBase != "" && r.Name != "" {
		m.ReportURL = strings.TrimSuffix(o.ReportBase, "/") + "/" + ReportPage(r)
	}
	return RunOf(r, m)
}

// CheckFiles lists the Result files paths name (as result.ResultFiles
// does) and checks that each is a run the history can keep, holding one
// Result at a time: a bad file among a thousand is an error naming it
// before anything is added. A Result of a session that did not reach Stop
// is listed; AddFiles skips it.
func CheckFiles(paths []string, o AddOptions) ([]string, error) {
	return resultpkg.ResultFiles(paths, func(path string, r *resultpkg.Result) error {
		if r.Unfinished != nil {
			return nil
		}
		run := o.run(r)
		if err := run.Check(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// AddFiles adds the runs of the Result files CheckFiles listed, each once
// (a run already there is left as it is), a batch per transaction, and
// returns how many were new. A Result of a session that did not reach Stop
// (killed, or still running) is skipped: its steps are not those of a run
// that ended, and no trend or baseline may take them for one.
func (s *Store) AddFiles(ctx context.Context, files []string, o AddOptions) (int, error) {
	b := addBatch{s: s, o: o}
	for _, f := range files {
		r, err := resultpkg.ReadResult(f)
		if err != nil {
			return b.added, fmt.Errorf("%w (it changed since it was checked)", err)
		}
		if r.Unfinished != nil {
			b.tell(AddedFile{Path: r.Path, Skipped: r.Error})
			continue
		}
		b.runs = append(b.runs, o.run(r))
		b.paths = append(b.paths, r.Path)
		if b.values += len(b.runs[len(b.runs)-1].Values); len(b.runs) >= addBatchRuns || b.values >= addBatchValues {
			if err := b.flush(ctx); err != nil {
				return b.added, err
			}
		}
	}
	return b.added, b.flush(ctx)
}

// addBatch is the runs AddFiles adds in one transaction.
type addBatch struct {
	s      *Store
	o      AddOptions
	runs   []Run
	paths  []string
	values int
	added  int
}

func (b *addBatch) tell(a AddedFile) {
	if b.o.Added != nil {
		b.o.Added(a)
	}
}

func (b *addBatch) flush(ctx context.Context) error {
	if len(b.runs) == 0 {
		return nil
	}
	ok, err := b.s.AddRuns(ctx, b.runs)
	if err != nil {
		return fmt.Errorf("%s … %s: %w", b.paths[0], b.paths[len(b.paths)-1], err)
	}
	for i, run := range b.runs {
		if ok[i] {
			b.added++
		}
		b.tell(AddedFile{Path: b.paths[i], Run: &run, New: ok[i]})
	}
	b.runs, b.paths, b.values = b.runs[:0], b.paths[:0], 0
	return nil
}
