package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations are the schema's versions, in order; migration i takes the
// schema from version i to i+1. A released migration is never edited: a
// change of schema is a new entry. The SQL is the same for SQLite and
// PostgreSQL.
var migrations = []string{
	// 1: runs and their values.
	`CREATE TABLE runs (
		id TEXT PRIMARY KEY,
		test TEXT NOT NULL,
		commit_sha TEXT NOT NULL,
		branch TEXT NOT NULL,
		started TEXT NOT NULL,
		device_model TEXT NOT NULL,
		manufacturer TEXT NOT NULL,
		serial TEXT NOT NULL,
		android TEXT NOT NULL,
		api INTEGER NOT NULL,
		package TEXT NOT NULL,
		app_version TEXT NOT NULL,
		report_url TEXT NOT NULL,
		notes TEXT NOT NULL,
		added TEXT NOT NULL
	);
	CREATE INDEX runs_by_test ON runs (test, device_model, started);
	CREATE TABLE run_values (
		run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		step TEXT NOT NULL,
		metric TEXT NOT NULL,
		value DOUBLE PRECISION NOT NULL,
		iterations INTEGER NOT NULL,
		unit TEXT NOT NULL,
		definition TEXT NOT NULL,
		better INTEGER NOT NULL,
		PRIMARY KEY (run_id, step, metric)
	);
	CREATE INDEX run_values_by_metric ON run_values (metric, step);`,
}

// SchemaVersion is the schema version this perfgate writes.
var SchemaVersion = len(migrations)

// migrate brings the schema up to SchemaVersion in one transaction, which
// holds the database's write lock (SQLite: BEGIN IMMEDIATE; PostgreSQL: an
// advisory lock), so processes opening a new history at once migrate it
// once.
func (s *Store) migrate(ctx context.Context) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if s.dialect == postgresDialect {
			// The key is arbitrary but fixed: "perfgate" in ASCII.
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7022344620729984869)"); err != nil {
				return fmt.Errorf("lock for migration: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS perfgate_schema (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)`); err != nil {
			return fmt.Errorf("schema table: %w", err)
		}
		var v int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM perfgate_schema").Scan(&v); err != nil {
			return fmt.Errorf("schema version: %w", err)
		}
		if v > len(migrations) {
			return fmt.Errorf("%w: version %d, this perfgate knows %d", ErrNewerSchema, v, len(migrations))
		}
		for i := v; i < len(migrations); i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migration to version %d: %w", i+1, err)
			}
			if _, err := tx.ExecContext(ctx, s.bind("INSERT INTO perfgate_schema (version, applied) VALUES (?, ?)"), i+1, formatTime(time.Now())); err != nil {
				return fmt.Errorf("migration to version %d: %w", i+1, err)
			}
		}
		return nil
	})
}
