package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/internal/atomicfile"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/filelock"
	"github.com/perfgate/perfgate/internal/jsondup"
	"github.com/perfgate/perfgate/metrics"
)

// BudgetSchema is the schema a budget file declares.
const BudgetSchema = "perfgate.budget/v1"

// File is a golden budget file: per step and metric, a limit and, for
// regression gates, the recorded baseline.
//
// The format is JSON rather than YAML: it needs no dependency, the decoder
// gives the line of a broken entry, and with sorted keys and two-space
// indents a rewritten file diffs cleanly in review:
//
//	{
//	  "schema": "perfgate.budget/v1",
//	  "steps": {
//	    "scroll": {
//	      "jank": { "max": 3, "unit": "frames", "definition": "deadline missed" },
//	      "fps":  { "min": 50, "unit": "fps" }
//	    }
//	  }
//	}
type File struct {
	Schema string                       `json:"schema"`
	Steps  map[string]map[string]*Entry `json:"steps"`
	// Models, when the file has them, hold budgets per device model, under
	// the model's full name ("Google Pixel 7", procfs.DeviceFacts.Name):
	// a run is checked against its model's budgets, and -update records
	// the model it ran on. Steps are then the budgets of any model without
	// its own. A file without "models" holds one set for every device.
	Models map[string]*ModelBudgets `json:"models,omitempty"`
	// Path is where the file was read; not serialised.
	Path string `json:"-"`
}

// ModelBudgets are the budgets of one device model.
type ModelBudgets struct {
	Steps map[string]map[string]*Entry `json:"steps"`
}

// Entry is one metric of one step.
type Entry struct {
	// Max is a ceiling, Min a floor; at most one is set.
	Max *float64 `json:"max,omitempty"`
	Min *float64 `json:"min,omitempty"`
	// Unit and Definition say what the limit is in and which definition
	// the metric follows, e.g. "frames", "deadline missed".
	Unit       string `json:"unit"`
	Definition string `json:"definition,omitempty"`
	// Baseline holds recorded iterations for the regression gate.
	Baseline *Baseline `json:"baseline,omitempty"`
	// Line is the entry's line in the file; not serialised.
	Line int `json:"-"`
}

// Limit returns the entry's budget for metric, if it has one, with the
// definition it was recorded under.
func (e *Entry) Limit(metric string) (Limit, bool) {
	switch {
	case e.Max != nil:
		return Limit{Metric: metrics.Name(metric), Value: *e.Max, Definition: e.Definition}, true
	case e.Min != nil:
		return Limit{Metric: metrics.Name(metric), Value: *e.Min, Min: true, Definition: e.Definition}, true
	}
	return Limit{}, false
}

// Baseline is the recorded iteration values of one metric and where they
// were recorded.
type Baseline struct {
	Values   []float64 `json:"values"`
	Device   string    `json:"device"`
	Android  string    `json:"android"`
	API      int       `json:"api"`
	Recorded time.Time `json:"recorded"`
}

// Path is where a budget file named path lives: a bare file name
// ("feed.budget.json") is under testdata/, where golden files live; any
// other path ("./x.json", "sub/x.json", an absolute one) is taken as given.
func Path(path string) string {
	if path != "" && path != "." && path != ".." && path == filepath.Base(path) {
		return filepath.Join("testdata", path)
	}
	return path
}

// ReadBudgetFile reads and checks a budget file. A bare name
// ("feed.budget.json") is read from testdata/; any other path ("./x.json",
// "sub/x.json", an absolute one) as given. A missing file gives an error that wraps fs.ErrNotExist and
// says how to create it; a broken one names the file, the line, the step
// and the metric.
func ReadBudgetFile(path string) (*File, error) {
	path = Path(path)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("perf budget file %s does not exist (run 'go test . -update' to record it): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("perf budget file: %w", err)
	}
	return ParseBudgetFile(path, b)
}

// ParseBudgetFile parses a budget file's bytes; path names it in errors,
// which quote at most a bounded excerpt of the offending text. A key that
// occurs twice in one object, at any level, is an error naming both lines:
// the JSON decoder would keep the last without a word.
func ParseBudgetFile(path string, b []byte) (*File, error) {
	if d := jsondup.Find(b); d != nil {
		return nil, d.Error(path)
	}
	f := &File{Path: path, Steps: map[string]map[string]*Entry{}}
	p := &budgetParser{path: path, b: b, dec: json.NewDecoder(bytes.NewReader(b))}
	p.dec.UseNumber()
	if err := p.expectDelim('{', "top level"); err != nil {
		return nil, err
	}
	for {
		k, ok, err := p.key()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		off := p.dec.InputOffset()
		switch k {
		case "schema":
			if err := p.dec.Decode(&f.Schema); err != nil {
				return nil, p.syntax(err)
			}
			if f.Schema != BudgetSchema {
				return nil, p.fail(off, "schema %s, want %q", excerpt.Quote(f.Schema), BudgetSchema)
			}
		case "steps":
			err = p.steps(f.Steps, "")
		case "models":
			f.Models = map[string]*ModelBudgets{}
			err = p.models(f.Models)
		default:
			return nil, p.fail(off, "unknown field %s (want schema, steps, models)", excerpt.Quote(k))
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.fail(p.dec.InputOffset(), "bad JSON: text after the top-level object")
	}
	if f.Schema == "" {
		return nil, p.fail(0, "no schema (want %q)", BudgetSchema)
	}
	return f, nil
}

// budgetParser reads a budget file token by token, so that an error can
// name the line, the step and the metric.
type budgetParser struct {
	path string
	b    []byte
	dec  *json.Decoder
}

func (p *budgetParser) lineAt(off int64) int {
	return 1 + bytes.Count(p.b[:min(int(off), len(p.b))], []byte("\n"))
}

func (p *budgetParser) fail(off int64, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.path, p.lineAt(off), fmt.Sprintf(format, args...))
}

// syntax is a decoding error at its line.
func (p *budgetParser) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.fail(se.Offset, "bad JSON: %s", excerpt.Text(err.Error()))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.fail(int64(len(p.b)), "bad JSON: unexpected end of file")
	}
	return p.fail(p.dec.InputOffset(), "bad JSON: %s", excerpt.Text(err.Error()))
}

func (p *budgetParser) expectDelim(want json.Delim, what string) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return p.fail(p.dec.InputOffset(), "%s: want %q, found %s", what, want, token(tok))
	}
	return nil
}

// key reads an object's next key; false at its closing brace.
func (p *budgetParser) key() (string, bool, error) {
	if !p.dec.More() {
		_, err := p.dec.Token() // the closing brace
		if err != nil {
			return "", false, p.syntax(err)
		}
		return "", false, nil
	}
	tok, err := p.dec.Token()
	if err != nil {
		return "", false, p.syntax(err)
	}
	return tok.(string), true, nil
}

// steps reads a "steps" object into into; where prefixes errors
// ("model \"Pixel 7\", ").
func (p *budgetParser) steps(into map[string]map[string]*Entry, where string) error {
	if err := p.expectDelim('{', where+`"steps"`); err != nil {
		return err
	}
	for {
		step, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if step == "" {
			return p.fail(p.dec.InputOffset(), "%sempty step name", where)
		}
		if err := p.expectDelim('{', where+"step "+excerpt.Quote(step)); err != nil {
			return err
		}
		entries := map[string]*Entry{}
		into[step] = entries
		if err := p.entries(entries, where, step); err != nil {
			return err
		}
	}
}

// entries reads the metrics of one step, up to its closing brace.
func (p *budgetParser) entries(into map[string]*Entry, where, step string) error {
	for {
		metric, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		at := p.dec.InputOffset()
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return p.syntax(err)
		}
		at += int64(len(raw) - len(bytes.TrimLeft(raw, " \t\r\n:"))) // skip to the value
		e, err := parseEntry(raw, metric)
		if err != nil {
			return p.fail(at+1, "%sstep %s, metric %s: %v", where, excerpt.Quote(step), excerpt.Quote(metric), err)
		}
		e.Line = p.lineAt(at + 1)
		into[metric] = e
	}
}

// models reads the "models" object into into.
func (p *budgetParser) models(into map[string]*ModelBudgets) error {
	if err := p.expectDelim('{', `"models"`); err != nil {
		return err
	}
	for {
		model, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		if strings.TrimSpace(model) == "" {
			return p.fail(p.dec.InputOffset(), "empty model name")
		}
		mb := &ModelBudgets{Steps: map[string]map[string]*Entry{}}
		into[model] = mb
		what := "model " + excerpt.Quote(model)
		if err := p.expectDelim('{', what); err != nil {
			return err
		}
		for {
			k, ok, err := p.key()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if k != "steps" {
				return p.fail(p.dec.InputOffset(), "%s: unknown field %s (want steps)", what, excerpt.Quote(k))
			}
			if err := p.steps(mb.Steps, what+", "); err != nil {
				return err
			}
		}
	}
}

// parseEntry decodes and checks one entry.
func parseEntry(raw []byte, metric string) (*Entry, error) {
	if !metrics.Name(metric).Known() {
		// The file's name, the step and the metric come before this: the
		// list is cut to keep the whole message bounded.
		return nil, fmt.Errorf("unknown metric (known: %s)", knownNames(excerpt.MaxMessage/2))
	}
	var e Entry
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return nil, fmt.Errorf("bad entry %s: %s", excerpt.Snippet(bytes.TrimSpace(raw)), excerpt.Text(err.Error()))
	}
	signed := metrics.Name(metric).Def().Signed
	bad := func(v *float64) bool { return v != nil && (*v < 0 && !signed || math.IsNaN(*v) || math.IsInf(*v, 0)) }
	switch {
	case e.Max != nil && e.Min != nil:
		return nil, fmt.Errorf("both max and min in %s", excerpt.Snippet(bytes.TrimSpace(raw)))
	case bad(e.Max):
		return nil, fmt.Errorf("negative limit max %v", *e.Max)
	case bad(e.Min):
		return nil, fmt.Errorf("negative limit min %v", *e.Min)
	case e.Max == nil && e.Min == nil && e.Baseline == nil:
		return nil, fmt.Errorf("no max, min or baseline in %s", excerpt.Snippet(bytes.TrimSpace(raw)))
	}
	if want := metrics.Name(metric).Def().Unit; e.Unit != "" && e.Unit != want {
		// A limit in another unit would be read as the metric's: 16 "ms"
		// of jank would mean 16 frames.
		return nil, fmt.Errorf("unit %s: %s is in %s", excerpt.Quote(e.Unit), metric, want)
	}
	if e.Baseline != nil {
		for _, v := range e.Baseline.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("baseline value %v is not a number", v)
			}
		}
	}
	return &e, nil
}

// token shows a JSON token found where another was wanted, bounded.
func token(tok json.Token) string {
	if s, ok := tok.(string); ok {
		return excerpt.Quote(s)
	}
	return excerpt.Text(fmt.Sprint(tok))
}

// marshal writes the file the way it is committed: sorted keys (maps sort
// in encoding/json), two-space indents, a final newline.
func (f *File) marshal() ([]byte, error) {
	f.Schema = BudgetSchema
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// fileLocks serialises updates of one file inside this process; the lock
// file serialises processes.
var fileLocks sync.Map

// UpdateBudgetFile rewrites a budget file under a lock: it re-reads the
// file (an absent one is empty), lets fn change it, and writes it through a
// temporary file and a rename, so parallel subtests and separate test
// processes updating one file merge their entries and lose nothing. A bare
// name is under testdata/, as for ReadBudgetFile.
//
// The lock is the file .<name>.lock beside the budget file, removed again
// when the update is done; it is never followed through a symbolic link.
// An update waits for it at most $PERFGATE_LOCK_TIMEOUT (a Go duration,
// default 30s) and then fails naming the lock and the process holding it.
func UpdateBudgetFile(path string, fn func(*File) error) error {
	path = Path(path)
	mu, _ := fileLocks.LoadOrStore(filepath.Clean(path), &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("perf budget file: %w", err)
	}
	timeout, err := filelock.Timeout()
	if err != nil {
		return fmt.Errorf("perf budget file %s: %w", path, err)
	}
	unlock, err := filelock.Lock(lockPath(path), timeout)
	if err != nil {
		return fmt.Errorf("perf budget file %s: %w", path, err)
	}
	defer unlock()
	f, err := ReadBudgetFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = &File{Schema: BudgetSchema, Path: path, Steps: map[string]map[string]*Entry{}}, nil
	}
	if err != nil {
		return err
	}
	// The file as read, to leave it untouched (its bytes, its layout) when
	// fn changes nothing in it.
	before, err := f.marshal()
	if err != nil {
		return fmt.Errorf("perf budget file %s: %w", path, err)
	}
	if err := fn(f); err != nil {
		return err
	}
	dropEmpty(f.Steps)
	for _, mb := range f.Models {
		dropEmpty(mb.Steps)
	}
	b, err := f.marshal()
	if err != nil {
		return fmt.Errorf("perf budget file %s: %w", path, err)
	}
	if _, serr := os.Stat(path); serr == nil && bytes.Equal(b, before) {
		return nil
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("perf budget file %s: %w", path, err)
	}
	return nil
}

// dropEmpty deletes the steps left without budgets.
func dropEmpty(steps map[string]map[string]*Entry) {
	for s, es := range steps {
		if len(es) == 0 {
			delete(steps, s)
		}
	}
}

// lockPath is the lock file that serialises processes updating path:
// beside it, where every process that can write the file finds the same
// lock, and nobody else can plant one (unlike a fixed name in the shared
// temporary directory).
func lockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// For returns the budgets that apply to a run on device d. A file without
// budgets per model holds one set for every device (own is true). In a
// file with them, a model's own budgets add to the shared ones: each of
// its entries overrides the shared entry of its step and metric, and every
// other shared budget still applies; own says whether d's model has
// budgets of its own. The maps returned are new; their entries are the
// file's.
func (f *File) For(d procfs.DeviceFacts) (steps map[string]map[string]*Entry, own bool) {
	if f.Models == nil {
		return f.Steps, true
	}
	merged := map[string]map[string]*Entry{}
	add := func(from map[string]map[string]*Entry) {
		for step, entries := range from {
			if merged[step] == nil {
				merged[step] = map[string]*Entry{}
			}
			for metric, e := range entries {
				merged[step][metric] = e
			}
		}
	}
	add(f.Steps)
	if mb, ok := f.Models[d.Name()]; ok && d.Name() != "" {
		add(mb.Steps)
		own = true
	}
	return merged, own
}

// Limits lists every budget of the file shared by every device, each for
// its step, sorted by step and metric: what a report checks and draws.
func (f *File) Limits() []Limit { return limitsOf(f.Steps) }

// LimitsFor lists the budgets that apply to a run on device d (see For),
// as Limits does, and whether they are d's model's own.
func (f *File) LimitsFor(d procfs.DeviceFacts) (limits []Limit, own bool) {
	steps, own := f.For(d)
	return limitsOf(steps), own
}

// limitsOf lists the budgets of steps, sorted by step and metric.
func limitsOf(steps map[string]map[string]*Entry) []Limit {
	var out []Limit
	for _, step := range slices.Sorted(maps.Keys(steps)) {
		entries := steps[step]
		for _, metric := range slices.Sorted(maps.Keys(entries)) {
			if l, ok := entries[metric].Limit(metric); ok {
				l.Step = step
				out = append(out, l)
			}
		}
	}
	return out
}
