package replay

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// refusals are statements PostgreSQL refuses after a setup it accepts. The
// differential fixtures cannot hold them (the server would stop there), so
// each is checked here against the server: it must refuse the statement
// with the SQLSTATE replay notes, and replay must change nothing.
var refusals = []struct {
	name     string
	setup    []string
	stmt     string
	sqlstate string
	// absent is a relation the statement would have created; with column
	// set, the relation must lack that column instead.
	absent, column string
}{
	{"a DEFERRABLE after NOT NULL is misplaced", nil,
		"CREATE TABLE t (a int UNIQUE NOT NULL DEFERRABLE)", "42601", "t", ""},
	{"a DEFERRABLE after DEFAULT is misplaced", nil,
		"CREATE TABLE t (a int UNIQUE DEFAULT 0 DEFERRABLE)", "42601", "t", ""},
	{"a DEFERRABLE after CHECK is misplaced", nil,
		"CREATE TABLE t (a int CHECK (a > 0) DEFERRABLE)", "42601", "t", ""},
	{"DEFERRABLE twice", nil,
		"CREATE TABLE t (a int UNIQUE DEFERRABLE NOT DEFERRABLE)", "42601", "t", ""},
	{"INITIALLY DEFERRED on a NOT DEFERRABLE key",
		[]string{"CREATE TABLE r (id int PRIMARY KEY)"},
		"CREATE TABLE t (a int REFERENCES r NOT DEFERRABLE INITIALLY DEFERRED)", "42601", "t", ""},
	{"an added column with a misplaced clause",
		[]string{"CREATE TABLE t (id int)"},
		"ALTER TABLE t ADD COLUMN a int UNIQUE NOT NULL INITIALLY DEFERRED", "42601", "t", "a"},
	{"NOT VALID foreign key on a partitioned table",
		[]string{"CREATE TABLE r (id int PRIMARY KEY)", "CREATE TABLE p (a int, d int) PARTITION BY LIST (d)"},
		"ALTER TABLE p ADD CONSTRAINT p_a_fkey FOREIGN KEY (a) REFERENCES r NOT VALID", "42809", "", ""},
	{"a foreign key to columns without a unique constraint",
		[]string{"CREATE TABLE r (id int PRIMARY KEY, code text)", "CREATE TABLE t (c text)"},
		"ALTER TABLE t ADD FOREIGN KEY (c) REFERENCES r (code)", "42830", "", ""},
	{"a foreign key to a table without a primary key",
		[]string{"CREATE TABLE r (id int)", "CREATE TABLE t (c int)"},
		"ALTER TABLE t ADD FOREIGN KEY (c) REFERENCES r", "42704", "", ""},
	{"dropping a referenced table without CASCADE",
		[]string{"CREATE TABLE r (id int PRIMARY KEY)", "CREATE TABLE t (c int REFERENCES r)"},
		"DROP TABLE r", "2BP01", "", ""},
	{"dropping a referenced column without CASCADE",
		[]string{"CREATE TABLE r (id int PRIMARY KEY, code text UNIQUE)", "CREATE TABLE t (c text REFERENCES r (code))"},
		"ALTER TABLE r DROP COLUMN code", "2BP01", "", ""},
	{"dropping a column a generated column reads, without CASCADE",
		[]string{"CREATE TABLE t (a text, b text GENERATED ALWAYS AS (lower(a)) STORED)"},
		"ALTER TABLE t DROP COLUMN a", "2BP01", "", ""},
	{"DROP TABLE on a materialized view",
		[]string{"CREATE MATERIALIZED VIEW mv AS SELECT 1 AS one"},
		"DROP TABLE mv", "42809", "", ""},
	{"ALTER TABLE ADD COLUMN on a materialized view",
		[]string{"CREATE MATERIALIZED VIEW mv AS SELECT 1 AS one"},
		"ALTER TABLE mv ADD COLUMN two int", "42809", "mv", "two"},
	{"CREATE INDEX CONCURRENTLY in a DO block",
		[]string{"CREATE TABLE t (a int)"},
		"DO $$ BEGIN CREATE INDEX CONCURRENTLY t_a ON t (a); END $$", "25001", "", ""},
	{"DROP INDEX CONCURRENTLY in a DO block",
		[]string{"CREATE TABLE t (a int)", "CREATE INDEX t_a ON t (a)"},
		"DO $$ BEGIN DROP INDEX CONCURRENTLY t_a; END $$", "25001", "", ""},
}

func TestReplayRefusesWhatTheServerRefuses(t *testing.T) {
	conn := testDB(t)
	ctx := context.Background()
	for i, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			schema := fmt.Sprintf("refusal_%d", i)
			if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema+"; SET search_path = "+schema); err != nil {
				t.Fatal(err)
			}
			execAll(t, conn, tc.setup)
			_, err := conn.Exec(ctx, tc.stmt)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != tc.sqlstate {
				t.Fatalf("server: %q gave %v, want SQLSTATE %s", tc.stmt, err, tc.sqlstate)
			}

			cat := catalog.New()
			r := NewReplayer(cat)
			for _, s := range tc.setup {
				if diags := r.Apply(scan.NewStatement("setup.sql", s, 0)); len(diags) > 0 {
					t.Fatalf("replay of the setup: %v", diags)
				}
			}
			diags := r.Apply(scan.NewStatement("m.sql", tc.stmt, 0))
			if len(diags) != 1 || diags[0].SQLState != tc.sqlstate {
				t.Errorf("replay noted %v, want one note with SQLSTATE %s", diags, tc.sqlstate)
			}
			if tc.absent != "" {
				tb := cat.ResolveTable("", tc.absent)
				switch {
				case tc.column == "" && tb != nil:
					t.Errorf("replay created %s", tc.absent)
				case tc.column != "" && (tb == nil || tb.Column(tc.column) != nil):
					t.Errorf("replay added %s.%s", tc.absent, tc.column)
				}
			}
		})
	}
}
