package replay

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// doBlockSeeds are DO blocks of every shape replay walks, for FuzzReplay.
var doBlockSeeds = []string{
	"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = 't') THEN CREATE TABLE t (a int); END IF; END $$",
	"DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'x') THEN RETURN; END IF; CREATE INDEX x ON t (a); END $$",
	"DO $$ DECLARE r record; BEGIN FOR r IN SELECT 1 LOOP EXECUTE format('DROP INDEX %I', 'x'); END LOOP; END $$",
	"DO $$ BEGIN EXECUTE 'ALTER TABLE t ' || 'ADD COLUMN b text'; EXCEPTION WHEN others THEN NULL; END $$",
	"DO 'BEGIN CREATE UNIQUE INDEX u ON t (a) WHERE b <> ''''; END'",
	"DO $$ BEGIN CASE WHEN true THEN ALTER TABLE t DROP COLUMN a; ELSE NULL; END CASE; END $$",
	"DO $$ BEGIN EXECUTE 'DO $x$ BEGIN CREATE TABLE nested (a int); END $x$'; END $$",
}

// notesAt lists the diagnostics as "pos message" for comparisons.
func notesAt(diags []scan.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Pos.String()+" "+d.Message)
	}
	return out
}

func wantNoDiags(t *testing.T, diags []scan.Diagnostic) {
	t.Helper()
	if len(diags) > 0 {
		t.Errorf("unexpected diagnostics:\n%s", strings.Join(notesAt(diags), "\n"))
	}
}

func unmodelledChanges(cat *catalog.Catalog) []catalog.Change {
	var out []catalog.Change
	for _, c := range changesOf(cat) {
		if c.Kind == catalog.ChangeUnmodelled {
			out = append(out, c)
		}
	}
	return out
}

func TestDoBlockStaticStatementsReplayAtTheirLines(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE accounts (id bigint PRIMARY KEY)",
		"DO $$\nDECLARE n int;\nBEGIN\n  CREATE TABLE claims (account_id bigint NOT NULL, key text);\n"+
			"  SELECT count(*) INTO n FROM accounts;\n  CREATE UNIQUE INDEX claims_key ON claims (account_id, key);\n"+
			"  ALTER TABLE claims ADD CONSTRAINT claims_account_fkey FOREIGN KEY (account_id) REFERENCES accounts;\nEND $$",
	)
	wantNoDiags(t, diags)
	claims := mustTable(t, cat, "public", "claims")
	if got := claims.Pos.String(); got != "m.sql:7:3" {
		t.Errorf("table created at %s, want m.sql:7:3", got)
	}
	ix := mustIndex(t, claims, "claims_key")
	if got := ix.Pos.String(); got != "m.sql:9:3" {
		t.Errorf("index created at %s, want m.sql:9:3", got)
	}
	if fk := claims.ForeignKey("claims_account_fkey"); fk == nil || fk.Pos.String() != "m.sql:10:26" {
		t.Errorf("foreign key = %+v, want it at its CONSTRAINT, m.sql:10:26", fk)
	}
	if un := unmodelledChanges(cat); len(un) != 0 {
		t.Errorf("unmodelled = %+v", un)
	}
}

// The idempotent-migration idiom: DDL under IF [NOT] EXISTS over the
// system catalogs runs, and where the guard would have skipped it the
// failure stays quiet.
func TestDoBlockCatalogGuards(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE users (id uuid PRIMARY KEY, confirmed_at timestamptz, email_confirmed_at timestamptz, phone text)",
		"DO $$\nBEGIN\n  IF NOT EXISTS (SELECT * FROM information_schema.columns\n"+
			"      WHERE table_name = 'users' AND column_name = 'email_confirmed_at') THEN\n"+
			"    ALTER TABLE users RENAME COLUMN confirmed_at TO email_confirmed_at;\n  END IF;\nEND $$",
		"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'users_phone_key') THEN "+
			"ALTER TABLE users ADD CONSTRAINT users_phone_key UNIQUE (phone); END IF; END $$",
		"DO $$ BEGIN IF to_regclass('public.sessions') IS NULL THEN CREATE TABLE sessions (id uuid PRIMARY KEY); END IF; END $$",
		"DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'users_phone_key') THEN RETURN; END IF;\n"+
			"CREATE UNIQUE INDEX users_phone_key ON users (phone); END $$",
	)
	wantNoDiags(t, diags)
	users := mustTable(t, cat, "public", "users")
	if users.Column("confirmed_at") == nil {
		t.Errorf("the guarded rename ran although its target column exists")
	}
	if ix := mustIndex(t, users, "users_phone_key"); ix.Constraint != "users_phone_key" {
		t.Errorf("users_phone_key = %+v", ix)
	}
	mustTable(t, cat, "public", "sessions")
}

// A guard whose ELSE branch also changes the model leaves replay no way to
// choose: neither branch runs, and both get a note.
func TestDoBlockBranchesReplayCannotChoose(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE events (tenant bigint NOT NULL, ext text)",
		"DO $$\nBEGIN\n  IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'x') THEN\n"+
			"    CREATE UNIQUE INDEX events_a ON events (tenant, ext);\n  ELSE\n"+
			"    CREATE UNIQUE INDEX events_b ON events (tenant, ext) NULLS NOT DISTINCT;\n  END IF;\n"+
			"  IF current_setting('server_version_num')::int >= 150000 THEN\n"+
			"    CREATE INDEX events_c ON events (ext);\n  END IF;\nEND $$",
	)
	tb := mustTable(t, cat, "public", "events")
	if len(tb.Indexes) != 0 {
		t.Errorf("indexes = %v, want none", tb.Indexes)
	}
	got := notesAt(diags)
	want := []string{"m.sql:7:5", "m.sql:9:5", "m.sql:12:5"}
	if len(got) != len(want) {
		t.Fatalf("notes = %q, want at %v", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+" replay does not follow CREATE ") || !strings.Contains(got[i], "IF condition") {
			t.Errorf("note %d = %q, want at %s", i, got[i], w)
		}
	}
	if un := unmodelledChanges(cat); len(un) != 3 || un[0].Table != "events" {
		t.Errorf("unmodelled = %+v", un)
	}
}

// A skipped statement the DDL pattern misses still names its table (an
// index's table), for the note on that table's findings.
func TestDoBlockSkippedRenameNamesItsTable(t *testing.T) {
	cat, _ := replayScript(t,
		"CREATE TABLE events (tenant bigint NOT NULL, ext text)",
		"CREATE UNIQUE INDEX events_ext ON events (tenant, ext)",
		"DO $$ BEGIN IF current_user = 'admin' THEN ALTER INDEX events_ext RENAME TO events_ext_old; END IF; END $$",
	)
	un := unmodelledChanges(cat)
	if len(un) != 1 || un[0].Table != "events" || un[0].Schema != "public" || un[0].Pos.String() != "m.sql:5:44" {
		t.Errorf("unmodelled = %+v", un)
	}
}

func TestDoBlockExecute(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE events (tenant bigint NOT NULL, ext text, kind text)",
		"DO $$\nDECLARE r record;\nBEGIN\n  EXECUTE 'CREATE UNIQUE INDEX events_ext ON events (tenant, ext)';\n"+
			"  EXECUTE 'ALTER TABLE events ' || 'ALTER COLUMN kind SET NOT NULL';\n"+
			"  EXECUTE format('DROP INDEX %I', 'events_ext');\n"+
			"  FOR r IN SELECT 1 LOOP\n    CREATE INDEX events_kind ON events (kind);\n  END LOOP;\nEND $$",
	)
	tb := mustTable(t, cat, "public", "events")
	ix := mustIndex(t, tb, "events_ext")
	if got := ix.Pos.String(); got != "m.sql:7:12" {
		t.Errorf("EXECUTE'd index at %s, want inside the literal, m.sql:7:12", got)
	}
	if !tb.Column("kind").NotNull {
		t.Errorf("the concatenated ALTER did not run")
	}
	if tb.Index("events_kind") != nil {
		t.Errorf("the loop's statement ran")
	}
	got := notesAt(diags)
	if len(got) != 2 || !strings.HasPrefix(got[0], "m.sql:9:11 replay cannot follow EXECUTE format('DROP INDEX %I', 'events_ext'): the SQL is built when the block runs") ||
		!strings.HasPrefix(got[1], "m.sql:11:5 replay does not follow CREATE INDEX events_kind") || !strings.Contains(got[1], "in a loop") {
		t.Errorf("notes = %q", got)
	}
}

// Failures inside a block with an exception handler are caught: quiet. The
// handler runs only when the block fails, so it does not run.
func TestDoBlockExceptionHandlers(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE users (id int, email text)",
		"DO $$ BEGIN\n  ALTER TABLE users DROP CONSTRAINT users_email_key;\n"+
			"EXCEPTION WHEN undefined_object THEN\n  CREATE INDEX users_fallback ON users (email);\nEND $$",
	)
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "only when the block above it fails") || diags[0].Pos.String() != "m.sql:7:3" {
		t.Errorf("diagnostics = %q, want the handler's note only", notesAt(diags))
	}
	if mustTable(t, cat, "public", "users").Index("users_fallback") != nil {
		t.Errorf("the handler ran")
	}
}

// A single-quoted body maps back to the file across doubled quotes; a body
// the PL/pgSQL parser refuses is a note, and nothing of it runs.
func TestDoBlockQuotingAndErrors(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE t (a text)",
		"DO 'BEGIN\n  RAISE NOTICE ''x'';\n  CREATE UNIQUE INDEX t_a ON t (a) WHERE a <> ''''; END'",
		"DO $$ BEGIN CREATE TABLE broken (a int; END $$",
		"DO LANGUAGE plpython3u $$ plpy.execute('CREATE TABLE py (a int)') $$",
		"DO $$ BEGIN CREATE INDEX CONCURRENTLY t_c ON t (a); END $$",
	)
	tb := mustTable(t, cat, "public", "t")
	if ix := mustIndex(t, tb, "t_a"); ix.Pos.String() != "m.sql:6:3" || ix.Predicate.String() != "a <> ''" {
		t.Errorf("t_a at %s with %s, want m.sql:6:3 and a <> ''", ix.Pos, ix.Predicate)
	}
	if cat.ResolveTable("", "broken") != nil || cat.ResolveTable("", "py") != nil || tb.Index("t_c") != nil {
		t.Errorf("tables = %v, indexes %v", tableNames(cat), tb.Indexes)
	}
	got := notesAt(diags)
	if len(got) != 2 || !strings.HasPrefix(got[0], "m.sql:7:1 replay cannot read the DO block (syntax error") ||
		!strings.HasPrefix(got[1], "m.sql:9:13 CREATE INDEX CONCURRENTLY cannot be executed from a function") {
		t.Errorf("notes = %q", got)
	}
	if un := unmodelledChanges(cat); len(un) != 2 {
		t.Errorf("unmodelled = %+v, want the unreadable block and the plpython one", un)
	}
}
