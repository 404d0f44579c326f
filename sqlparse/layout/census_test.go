package layout

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSQLDialect(t *testing.T) {
	for _, c := range []struct {
		name, dialect string
		ok            bool
	}{
		{"a.sql", "", true}, {"A.SQL", "", true}, {"a.sql.postgres", "postgres", true},
		{"a.sql.SQLite", "sqlite", true}, {"a.sqlx", "", false}, {"a.sql.", "", false},
		{"a.sql.bak~", "", false}, {".sql", "", false}, {"notes.txt", "", false},
	} {
		d, ok := SQLDialect(c.name)
		if d != c.dialect || ok != c.ok {
			t.Errorf("SQLDialect(%q) = %q, %v; want %q, %v", c.name, d, ok, c.dialect, c.ok)
		}
	}
	if downKind("1_x.down.sql.postgres") == "" {
		t.Error("a .down.sql.postgres file is not a down migration")
	}
}

// A query file (sqlc's) is not schema; a comment that mentions DDL does
// not make it one.
func TestHasDDL(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		text string
		want bool
	}{
		"q.sql":     {"-- name: Get :one\n-- drop table when done\nSELECT * FROM t WHERE id = $1;\n", false},
		"ddl.sql":   {"create unique index i on t (a);\n", true},
		"alter.sql": {"ALTER TABLE t ADD COLUMN b int;\n", true},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := HasDDL(p); got != c.want {
			t.Errorf("HasDDL(%s) = %v, want %v", name, got, c.want)
		}
	}
}
