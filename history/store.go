package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	// The two stores: PostgreSQL through pgx, SQLite in pure Go (no cgo).
	_ "github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/perfgate/perfgate/metrics"
)

// Store is a performance history: an SQLite file, or a PostgreSQL
// database that a team shares. Both hold the same schema and answer the
// same queries. A Store is safe for concurrent use, and several processes
// may add runs to one history at once.
type Store struct {
	db      *sql.DB
	dialect dialect
	// name is the history as errors quote it (a PostgreSQL DSN without its
	// password).
	name string
}

type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// ErrNewerSchema is returned by Open for a history written by a newer
// perfgate, whose schema this one does not know.
var ErrNewerSchema = errors.New("history schema is newer than this perfgate")

// Open opens the history dsn names, creating or migrating its schema:
//
//   - a PostgreSQL URL or DSN: "postgres://user@host/db", "postgresql://…",
//     or key=value pairs ("host=/run/postgresql dbname=perf"); runtime
//     parameters such as search_path go in the query string;
//   - anything else is an SQLite file: "perf-history.db",
//     "sqlite:perf-history.db", or a "file:" URI. Its folder is created.
//
// The SQLite file runs in WAL mode with a busy timeout, and writes take
// the write lock when they begin, so concurrent writers wait for each
// other instead of failing.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, errors.New("history: no history given (a file name or a PostgreSQL DSN)")
	}
	s := &Store{name: redact(dsn)}
	var err error
	if isPostgres(dsn) {
		s.dialect = postgresDialect
		s.db, err = sql.Open("pgx", dsn)
	} else {
		var src string
		src, err = sqliteSource(dsn)
		if err == nil {
			s.db, err = sql.Open("sqlite", src)
		}
		if err == nil {
			if err = useWAL(ctx, s.db); err != nil {
				s.db.Close()
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	return s, nil
}

// OpenExisting opens a history that must exist already, for commands that
// only read it: a file that is not there is an error naming it, and is not
// created (Open would make an empty one, and a misspelt path would read as
// a history without runs). An SQLite file this process may not write, or
// one named read-only ("file:h.db?mode=ro"), is opened read-only, without
// migrating its schema: it must be of the schema this perfgate writes.
func OpenExisting(ctx context.Context, dsn string) (*Store, error) {
	if isPostgres(dsn) || strings.TrimSpace(dsn) == "" {
		return Open(ctx, dsn)
	}
	path := sqlitePath(dsn)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no history %s (%w): perfgate history add, or a session with PERFGATE_HISTORY set, makes one", redact(dsn), err)
	} else if err != nil {
		return nil, fmt.Errorf("history %s: %w", redact(dsn), err)
	}
	readOnly := strings.Contains(dsn, "mode=ro")
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
	} else {
		readOnly = true
	}
	if !readOnly {
		return Open(ctx, dsn)
	}
	s := &Store{name: redact(dsn)}
	src, err := sqliteSource(dsn)
	if err == nil {
		if !strings.Contains(src, "mode=ro") {
			src += "&mode=ro"
		}
		s.db, err = sql.Open("sqlite", src)
	}
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.name, err)
	}
	var v int
	if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM perfgate_schema").Scan(&v); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("history %s (read-only): %w", s.name, err)
	}
	if v != SchemaVersion {
		s.db.Close()
		return nil, fmt.Errorf("history %s is read-only and of schema version %d, this perfgate reads %d: open it once where it can be written to migrate it", s.name, v, SchemaVersion)
	}
	return s, nil
}

// sqlitePath is the file an SQLite DSN names.
func sqlitePath(dsn string) string {
	path := strings.TrimPrefix(dsn, "sqlite:")
	if u, ok := strings.CutPrefix(path, "file:"); ok {
		path, _, _ = strings.Cut(u, "?")
	}
	return path
}

// Close closes the history.
func (s *Store) Close() error { return s.db.Close() }

// String names the history, without a password.
func (s *Store) String() string { return s.name }

func isPostgres(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return true
	}
	return kvDSN.MatchString(dsn)
}

// kvDSN matches a libpq key=value connection string.
var kvDSN = regexp.MustCompile(`^\s*(host|hostaddr|port|dbname|user|password|sslmode|service)\s*=`)

// sqliteSource turns a file name or URI into modernc.org/sqlite's DSN with
// the settings concurrent writers need.
func sqliteSource(dsn string) (string, error) {
	path := strings.TrimPrefix(dsn, "sqlite:")
	query := ""
	uri := strings.HasPrefix(path, "file:")
	if uri {
		u := strings.TrimPrefix(path, "file:")
		path, query, _ = strings.Cut(u, "?")
	}
	if path == "" || path == ":memory:" {
		return "", fmt.Errorf("want a file: an in-memory database would keep nothing")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	q := "_pragma=busy_timeout(" + strconv.FormatInt(busyTimeout.Milliseconds(), 10) + ")&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	if query != "" {
		q += "&" + query
	}
	if !uri {
		// A file name is a name, not a URI: "%", "?" and "#" in it are
		// its own characters, which the URI must escape.
		path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	}
	return "file:" + path + "?" + q, nil
}

// busyTimeout is how long an SQLite history waits for another writer:
// the busy_timeout sqliteSource sets, and useWAL's bound.
const busyTimeout = 60 * time.Second

// useWAL puts an SQLite history in WAL mode, which the file keeps, so
// readers never wait for a writer. Switching a new file to WAL takes its
// exclusive lock, and SQLite answers SQLITE_BUSY at once, without waiting
// out the busy timeout, when processes opening a new history at the same
// moment would otherwise deadlock; so the switch is retried, as SQLite's
// own busy handler would, for at most busyTimeout. (Setting the mode in
// the DSN, on every connection's open, failed that way 2 % of the time
// with eight processes creating one history at once.)
func useWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	wait := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("WAL mode: %w", err)
			}
			// A file system without shared memory keeps its rollback
			// journal: slower readers, the same data.
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("WAL mode: %w (waiting after: %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY, or one of its
// extended codes.
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

// redact removes a password from a DSN.
func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" || strings.HasPrefix(dsn, "postgres") {
		if err == nil {
			// libpq takes a password in the query string too.
			if q := u.Query(); q.Has("password") {
				q.Set("password", "xxxxx")
				u.RawQuery = q.Encode()
			}
			return u.Redacted()
		}
	}
	return kvPassword.ReplaceAllString(dsn, "${1}xxxxx")
}

var kvPassword = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)

// bind rewrites ? placeholders as PostgreSQL's $1, $2, ….
func (s *Store) bind(q string) string {
	if s.dialect != postgresDialect {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// timeFormat stores times as fixed-width UTC text, which sorts as time in
// both databases.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) { return time.Parse(timeFormat, s) }

// Add stores a run and its values in one transaction. It returns false,
// and changes nothing, when a run with its ID is stored already.
func (s *Store) Add(ctx context.Context, r Run) (bool, error) {
	added, err := s.AddRuns(ctx, []Run{r})
	if err != nil {
		return false, err
	}
	return added[0], nil
}

// AddRuns stores runs and their values in one transaction: all of them, or
// on an error none. added[i] is false for a run whose ID was stored already
// (or given twice), which is left as it is. Every run is checked before
// anything is written.
func (s *Store) AddRuns(ctx context.Context, runs []Run) (added []bool, err error) {
	for i := range runs {
		if err := runs[i].Check(); err != nil {
			return nil, fmt.Errorf("history %s: add: %w", s.name, err)
		}
	}
	added = make([]bool, len(runs))
	now := formatTime(time.Now())
	var failed *Run
	err = s.tx(ctx, func(tx *sql.Tx) error {
		insRun, err := tx.PrepareContext(ctx, s.bind(`INSERT INTO runs (id, test, commit_sha, branch, started, device_model, manufacturer, serial,
			android, api, package, app_version, report_url, notes, added)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`))
		if err != nil {
			return err
		}
		defer insRun.Close()
		// Values go in many rows per statement into PostgreSQL, one round
		// trip per hundred values, with one prepared statement per row
		// count; SQLite, in this process, takes one row per statement,
		// which needs no statement journal to undo a part of it.
		batch := 100
		if s.dialect == sqliteDialect {
			batch = 1
		}
		insValues := map[int]*sql.Stmt{}
		defer func() {
			for _, st := range insValues {
				st.Close()
			}
		}()
		args := make([]any, 0, 8*batch)
		for i := range runs {
			r := &runs[i]
			failed = r
			res, err := insRun.ExecContext(ctx, r.ID, r.Test, r.Commit, r.Branch, formatTime(r.Time), r.Device, r.Manufacturer, r.Serial,
				r.Android, r.API, r.Package, r.AppVersion, r.ReportURL, strings.Join(r.Notes, "\n"), now)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				continue
			}
			added[i] = true
			for j := 0; j < len(r.Values); j += batch {
				vs := r.Values[j:min(j+batch, len(r.Values))]
				st := insValues[len(vs)]
				if st == nil {
					q := "INSERT INTO run_values (run_id, step, metric, value, iterations, unit, definition, better) VALUES " +
						strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(vs)), ", ")
					if st, err = tx.PrepareContext(ctx, s.bind(q)); err != nil {
						return err
					}
					insValues[len(vs)] = st
				}
				args = args[:0]
				for _, v := range vs {
					args = append(args, r.ID, v.Step, v.Metric, v.Value, v.Iterations, v.Unit, v.Definition, int(v.Better))
				}
				if _, err := st.ExecContext(ctx, args...); err != nil {
					return err
				}
			}
		}
		failed = nil
		return nil
	})
	if err != nil {
		if failed != nil {
			return nil, fmt.Errorf("history %s: add run %s (%s): %w", s.name, failed.ID, failed.Test, err)
		}
		return nil, fmt.Errorf("history %s: add: %w", s.name, err)
	}
	return added, nil
}

// tx runs fn in a transaction, committing when it returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Key names one series: a metric of a step of a test on a device model.
type Key struct {
	Test, Step, Metric, Device string
}

func (k Key) String() string {
	return fmt.Sprintf("%s %s %s on %s", k.Test, k.Step, k.Metric, deviceName(k.Device))
}

func deviceName(d string) string {
	if d == "" {
		return "an unnamed device"
	}
	return d
}

// Filter narrows the runs a query reads. Empty fields match everything. A
// Test without a package ("TestFeed") matches the test in every package
// ("TestFeed@feed").
type Filter struct {
	Test, Step, Metric, Device string
	// Branches keeps runs of these branches only.
	Branches []string
	// Since keeps runs that started at or after it.
	Since time.Time
}

// where turns f into SQL conditions over runs r and run_values v.
func (f Filter) where() (string, []any) {
	rc, ra := f.runConds()
	vc, va := f.valueConds()
	return whereOf(append(rc, vc...)), append(ra, va...)
}

// whereOf joins conditions into a WHERE clause ("" for none).
func whereOf(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// valueConds are f's conditions over run_values v.
func (f Filter) valueConds() (conds []string, args []any) {
	for _, c := range [][2]string{{"v.step", f.Step}, {"v.metric", f.Metric}} {
		if c[1] != "" {
			conds = append(conds, c[0]+" = ?")
			args = append(args, c[1])
		}
	}
	return conds, args
}

// runConds are f's conditions over runs r.
func (f Filter) runConds() (conds []string, args []any) {
	if f.Test != "" {
		// A test's bare name matches it in every package: runs are kept
		// as "TestFeed@feed" (result.Result.Key).
		conds = append(conds, "(r.test = ? OR r.test LIKE ? ESCAPE '\\')")
		args = append(args, f.Test, likeEscape(f.Test)+"@%")
	}
	if f.Device != "" {
		conds = append(conds, "r.device_model = ?")
		args = append(args, f.Device)
	}
	if len(f.Branches) > 0 {
		conds = append(conds, "r.branch IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(f.Branches)), ", ")+")")
		for _, b := range f.Branches {
			args = append(args, b)
		}
	}
	if !f.Since.IsZero() {
		conds = append(conds, "r.started >= ?")
		args = append(args, formatTime(f.Since))
	}
	return conds, args
}

// likeEscape escapes LIKE's wildcards in s, with \ as the escape.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Keys lists the series the history holds that f matches, sorted.
func (s *Store) Keys(ctx context.Context, f Filter) ([]Key, error) {
	w, args := f.where()
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT DISTINCT r.test, v.step, v.metric, r.device_model
		FROM run_values v JOIN runs r ON r.id = v.run_id`+w+` ORDER BY r.test, v.step, v.metric, r.device_model`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: keys: %w", s.name, err)
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		var k Key
		if err := rows.Scan(&k.Test, &k.Step, &k.Metric, &k.Device); err != nil {
			return nil, fmt.Errorf("history %s: keys: %w", s.name, err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: keys: %w", s.name, err)
	}
	return out, nil
}

// Series is one metric's values over the runs, oldest first.
type Series struct {
	Key
	// Unit, Definition and Better are those of the newest run.
	Unit, Definition string
	Better           metrics.Better
	// Points are the runs read in full, oldest first: all of them, or
	// the newest ones when the read was bounded (Store.Trends with
	// TrendOptions.Last), after Older runs read as values only.
	Points []Point
	// Older counts the runs before Points; Value and Time give theirs.
	Older int
	// values and times (Unix ns) are every run's, oldest first, when
	// Older > 0.
	values []float64
	times  []int64
}

// Len is how many runs the series has.
func (s *Series) Len() int { return s.Older + len(s.Points) }

// Value is the value of run i of the series (0 ≤ i < Len), oldest first.
func (s *Series) Value(i int) float64 {
	if i >= s.Older {
		return s.Points[i-s.Older].Value
	}
	return s.values[i]
}

// Time is when run i of the series (0 ≤ i < Len) started.
func (s *Series) Time(i int) time.Time {
	if i >= s.Older {
		return s.Points[i-s.Older].Time
	}
	return time.Unix(0, s.times[i]).UTC()
}

// point is run i as far as the series knows it: in full from Points, else
// its time and value.
func (s *Series) point(i int) Point {
	if i >= s.Older {
		return s.Points[i-s.Older]
	}
	return Point{Time: s.Time(i), Value: s.values[i]}
}

// Point is one run's value.
type Point struct {
	RunID, Commit, Branch string
	Time                  time.Time
	Value                 float64
	Iterations            int
	Android, AppVersion   string
	ReportURL             string
}

// Series reads every series f matches (f.Test, Step, Metric and Device
// narrow it; empty means all), each in the order the runs started, every
// run in full. A run that did not measure the metric has no point in it.
// Store.Trends reads a long history in bounded memory.
func (s *Store) Series(ctx context.Context, f Filter) ([]Series, error) {
	rd, err := s.read(ctx, f, -1)
	if err != nil {
		return nil, err
	}
	return rd.series, nil
}

// Count returns how many runs the history holds.
func (s *Store) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM runs").Scan(&n); err != nil {
		return 0, fmt.Errorf("history %s: count: %w", s.name, err)
	}
	return n, nil
}
