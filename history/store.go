package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	if _, err := os.Stat(path); err != nil {
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
	if err := r.check(); err != nil {
		return false, fmt.Errorf("history %s: add: %w", s.name, err)
	}
	added := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.bind(`INSERT INTO runs (id, test, commit_sha, branch, started, device_model, manufacturer, serial,
			android, api, package, app_version, report_url, notes, added)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
			r.ID, r.Test, r.Commit, r.Branch, formatTime(r.Time), r.Device, r.Manufacturer, r.Serial,
			r.Android, r.API, r.Package, r.AppVersion, r.ReportURL, strings.Join(r.Notes, "\n"), formatTime(time.Now()))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		added = true
		// Many rows per statement: one round trip per hundred values.
		const batch = 100
		for i := 0; i < len(r.Values); i += batch {
			vs := r.Values[i:min(i+batch, len(r.Values))]
			var q strings.Builder
			q.WriteString("INSERT INTO run_values (run_id, step, metric, value, iterations, unit, definition, better) VALUES ")
			args := make([]any, 0, 8*len(vs))
			for j, v := range vs {
				if j > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
				args = append(args, r.ID, v.Step, v.Metric, v.Value, v.Iterations, v.Unit, v.Definition, int(v.Better))
			}
			if _, err := tx.ExecContext(ctx, s.bind(q.String()), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("history %s: add run %s (%s): %w", s.name, r.ID, r.Test, err)
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
	var conds []string
	var args []any
	eq := func(col, v string) {
		if v != "" {
			conds = append(conds, col+" = ?")
			args = append(args, v)
		}
	}
	if f.Test != "" {
		// A test's bare name matches it in every package: runs are kept
		// as "TestFeed@feed" (perftest.Result.Key).
		conds = append(conds, "(r.test = ? OR r.test LIKE ? ESCAPE '\\')")
		args = append(args, f.Test, likeEscape(f.Test)+"@%")
	}
	eq("v.step", f.Step)
	eq("v.metric", f.Metric)
	eq("r.device_model", f.Device)
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
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
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
	Points           []Point
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
// narrow it; empty means all), each in the order the runs started. A run
// that did not measure the metric has no point in it.
func (s *Store) Series(ctx context.Context, f Filter) ([]Series, error) {
	w, args := f.where()
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT r.test, v.step, v.metric, r.device_model, r.id, r.commit_sha, r.branch, r.started,
		v.value, v.iterations, r.android, r.app_version, r.report_url, v.unit, v.definition, v.better
		FROM run_values v JOIN runs r ON r.id = v.run_id`+w+`
		ORDER BY r.test, v.step, v.metric, r.device_model, r.started, r.id`), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: series: %w", s.name, err)
	}
	defer rows.Close()
	var out []Series
	for rows.Next() {
		var k Key
		var p Point
		var started, unit, def string
		var better int
		if err := rows.Scan(&k.Test, &k.Step, &k.Metric, &k.Device, &p.RunID, &p.Commit, &p.Branch, &started,
			&p.Value, &p.Iterations, &p.Android, &p.AppVersion, &p.ReportURL, &unit, &def, &better); err != nil {
			return nil, fmt.Errorf("history %s: series: %w", s.name, err)
		}
		if p.Time, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("history %s: series: run %s: start time %q: %w", s.name, p.RunID, started, err)
		}
		if len(out) == 0 || out[len(out)-1].Key != k {
			out = append(out, Series{Key: k})
		}
		sr := &out[len(out)-1]
		sr.Unit, sr.Definition, sr.Better = unit, def, metrics.Better(better)
		sr.Points = append(sr.Points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: series: %w", s.name, err)
	}
	return out, nil
}

// Count returns how many runs the history holds.
func (s *Store) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM runs").Scan(&n); err != nil {
		return 0, fmt.Errorf("history %s: count: %w", s.name, err)
	}
	return n, nil
}
