package history

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvTestPostgres names the variable holding the DSN of a PostgreSQL server
// the tests may create schemas in; .ci/postgres starts one and prints it.
// PERFGATE_REQUIRE_POSTGRES=1 (set by CI) makes its absence a failure.
const envTestPostgres = "PERFGATE_TEST_POSTGRES"

// storeKind opens fresh, empty histories of one kind: dsn returns a new
// one's DSN each call, or the same one again with the same name.
type storeKind struct {
	name string
	dsn  func(t *testing.T, name string) string
}

// forEachStore runs body once per store kind: the embedded SQLite file
// always, PostgreSQL where a server is given.
func forEachStore(t *testing.T, body func(t *testing.T, k storeKind)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		body(t, storeKind{name: "sqlite", dsn: func(t *testing.T, name string) string { return filepath.Join(dir, name+".db") }})
	})
	t.Run("postgres", func(t *testing.T) {
		base := os.Getenv(envTestPostgres)
		if base == "" {
			if os.Getenv("PERFGATE_REQUIRE_POSTGRES") == "1" {
				t.Fatalf("%s is unset and PERFGATE_REQUIRE_POSTGRES=1 (start a server: export %s=$(.ci/postgres start))", envTestPostgres, envTestPostgres)
			}
			t.Skipf("%s is unset: no PostgreSQL server to test against (export %s=$(.ci/postgres start); PERFGATE_REQUIRE_POSTGRES=1 makes this a failure)", envTestPostgres, envTestPostgres)
		}
		schemas := map[string]string{}
		body(t, storeKind{name: "postgres", dsn: func(t *testing.T, name string) string {
			if s, ok := schemas[name]; ok {
				return withSearchPath(base, s)
			}
			s := pgSchema(t, base)
			schemas[name] = s
			return withSearchPath(base, s)
		}})
	})
}

// pgSchema creates a schema of its own for a test and drops it after.
func pgSchema(t *testing.T, dsn string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := "perfgate_test_" + hex.EncodeToString(b)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		db.Close()
		t.Fatalf("create schema on %s: %v", redact(dsn), err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + name + " CASCADE")
		db.Close()
	})
	return name
}

func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, _ := url.Parse(dsn)
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// open opens the named history of kind k and closes it after the test.
func (k storeKind) open(t *testing.T, name string) *Store {
	t.Helper()
	s, err := Open(context.Background(), k.dsn(t, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
