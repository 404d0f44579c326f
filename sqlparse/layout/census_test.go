package layout

import (
	"fmt"
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

// The census of a tree lists its files in natural order (2 before 10),
// whatever the order the directory gives them in.
func TestCensusNaturalOrder(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []int{10, 2, 1, 100, 20, 3} {
		name := filepath.Join(dir, fmt.Sprintf("%d_create_t%d.up.sql", v, v))
		if err := os.WriteFile(name, []byte(fmt.Sprintf("CREATE TABLE t%d (id int);\n", v)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, c := range Census(dir) {
		got = append(got, filepath.Base(c.Path))
	}
	want := []string{"1_create_t1.up.sql", "2_create_t2.up.sql", "3_create_t3.up.sql", "10_create_t10.up.sql",
		"20_create_t20.up.sql", "100_create_t100.up.sql"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("census order %v, want %v", got, want)
	}
}

// BenchmarkCensus takes the census of a tree of 5,000 migrations, the size
// of the bench's corpus L: sorting its names once cost more than linting it.
func BenchmarkCensus(b *testing.B) {
	dir := b.TempDir()
	for v := range 5000 {
		name := filepath.Join(dir, fmt.Sprintf("%06d_step.up.sql", 5000-v))
		if err := os.WriteFile(name, []byte("CREATE TABLE t (id int);\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if n := len(Census(dir)); n != 5000 {
			b.Fatalf("census of %d files", n)
		}
	}
}
