package replay

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// FuzzReplaySequence splits arbitrary text into statements and replays all
// of them through one Replayer, as lint does with a migration file, then
// runs every rule on the result. Statements that build on each other
// (create, alter, drop, rename, index, partition) reach states a single
// statement never does. Nothing may panic (Apply turns a panic into an
// "internal error" diagnostic) and every position must lie in the file.
func FuzzReplaySequence(f *testing.F) {
	for _, seed := range []string{
		"CREATE TABLE t (a int, b text); CREATE UNIQUE INDEX ON t (a, b); ALTER TABLE t ALTER b SET NOT NULL;",
		"CREATE TABLE t (a int); ALTER TABLE t RENAME TO u; ALTER TABLE u RENAME a TO b; CREATE UNIQUE INDEX i ON u (b) WHERE b IS NOT NULL; DROP TABLE u;",
		"CREATE SCHEMA s; CREATE TABLE s.p (k text, v int) PARTITION BY LIST (v); CREATE TABLE s.p1 PARTITION OF s.p FOR VALUES IN (1); CREATE UNIQUE INDEX ON s.p (k, v);",
		"CREATE TABLE t (a int, b int, CHECK ((a IS NULL) <> (b IS NULL))); CREATE UNIQUE INDEX ON t (a) WHERE b IS NULL; ALTER TABLE t DROP CONSTRAINT t_check;",
		"CREATE TABLE t (id serial PRIMARY KEY, k text UNIQUE NULLS NOT DISTINCT); ALTER TABLE t ADD CONSTRAINT c UNIQUE (k); ALTER INDEX t_k_key RENAME TO x; DROP INDEX x;",
		"CREATE DOMAIN d AS text NOT NULL; CREATE TABLE t (k d); CREATE UNIQUE INDEX ON t (lower(k)); ALTER TABLE t ALTER k TYPE text;",
		"CREATE TABLE t (a int); CREATE TABLE t (a int); DROP TABLE nope; ALTER TABLE nope ADD b int; CREATE INDEX ON nope (a);",
		"CREATE TABLE t (a int) ; ALTER TABLE t ADD COLUMN b int GENERATED ALWAYS AS IDENTITY, ALTER a SET NOT NULL, DROP a;",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 {
			return // long inputs only slow the fuzzer down
		}
		cat := catalog.New()
		r := NewReplayer(cat)
		split := scan.Split(scan.Input{Path: "f.sql", Text: src})
		lines := strings.Count(src, "\n") + 1
		for _, st := range split.Statements {
			for _, d := range r.Apply(st) {
				if strings.Contains(d.Message, "internal error") {
					t.Fatalf("replay of %q panicked: %s", st.Text, d)
				}
				if d.Pos.Line < 0 || d.Pos.Line > lines {
					t.Fatalf("diagnostic at line %d of a %d-line file: %s", d.Pos.Line, lines, d)
				}
			}
		}
		for _, fd := range audit.Run(cat, audit.Rules, audit.Options{PGVersion: 15}) {
			if fd.Pos.Line > lines {
				t.Fatalf("finding at line %d of a %d-line file: %+v", fd.Pos.Line, lines, fd)
			}
		}
	})
}
