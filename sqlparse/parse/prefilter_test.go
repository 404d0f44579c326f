package parse_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/replay"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// prefilterMix has a statement of every kind the prefilter looks at, next
// to look-alikes it must leave to the parser: DDL run from a function or DO
// block, SELECT INTO, pg_dump's set_config, SET SCHEMA, INSERT ... ON
// CONFLICT, renames through views, and statements about missing objects
// (their notes must survive).
const prefilterMix = `
CREATE SCHEMA app;
SELECT pg_catalog.set_config('search_path', 'app', false);
SET statement_timeout = 0;
CREATE TABLE accounts (id bigint PRIMARY KEY, email text, external_id text);
CREATE UNIQUE INDEX accounts_email_key ON accounts (email);
COMMENT ON TABLE accounts IS 'the accounts';
GRANT SELECT ON accounts TO PUBLIC;
REVOKE ALL ON accounts FROM PUBLIC;
CREATE SEQUENCE accounts_seq;
ALTER SEQUENCE accounts_seq OWNED BY accounts.id;
ALTER SEQUENCE accounts_seq OWNER TO postgres;
CREATE INDEX accounts_seq ON accounts (email);
CREATE OR REPLACE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.email := lower(NEW.email); RETURN NEW; END $$;
CREATE FUNCTION add_key() RETURNS void LANGUAGE plpgsql AS $$
BEGIN CREATE UNIQUE INDEX accounts_external_key ON accounts (external_id); END $$;
CREATE FUNCTION esc() RETURNS text LANGUAGE sql AS E'SELECT \'x\'';
DO $$ BEGIN PERFORM 1; END $$;
DO $$ BEGIN ALTER TABLE accounts ALTER COLUMN email DROP NOT NULL; END $$;
CREATE TRIGGER accounts_touch BEFORE INSERT ON accounts FOR EACH ROW EXECUTE FUNCTION touch();
CREATE VIEW active_accounts AS SELECT * FROM accounts;
ALTER VIEW active_accounts OWNER TO postgres;
ALTER VIEW active_accounts RENAME COLUMN email TO mail;
ALTER VIEW missing_view RENAME COLUMN email TO mail;
ALTER TABLE missing_table OWNER TO postgres;
ALTER TABLE IF EXISTS missing_table OWNER TO postgres;
ALTER TABLE ONLY app.accounts OWNER TO postgres;
ALTER TABLE ONLY app.missing ALTER COLUMN id SET DEFAULT nextval('app.accounts_seq'::regclass);
CREATE TABLE app."Mixed Case" (id int, code text);
ALTER TABLE app."Mixed Case" OWNER TO postgres;
ALTER TABLE APP."Mixed Case" ALTER id SET DEFAULT 1;
ALTER TABLE app."mixed case" OWNER TO postgres;
ALTER TABLE "app".accounts OWNER TO postgres, ALTER COLUMN email SET NOT NULL;
ALTER TABLE app.accounts ALTER COLUMN external_id SET DEFAULT 'x', ALTER COLUMN external_id DROP NOT NULL;
CREATE FUNCTION nulls(a text) RETURNS boolean LANGUAGE sql AS $$ SELECT a IS NOT NULL $$;
CREATE FUNCTION loosen() RETURNS void LANGUAGE plpgsql AS $$
BEGIN ALTER TABLE app.accounts ALTER COLUMN email DROP NOT NULL; END $$;
INSERT INTO accounts VALUES (1, 'a@example.com', NULL);
INSERT INTO accounts VALUES (2, 'b@example.com', 'x') ON CONFLICT (email) DO NOTHING;
UPDATE accounts SET email = NULL WHERE id = 1;
DELETE FROM accounts WHERE id = 2;
SELECT count(*) FROM accounts;
SELECT * INTO accounts_copy FROM accounts;
CREATE UNIQUE INDEX accounts_copy_email_key ON accounts_copy (email);
SET SCHEMA 'public';
CREATE TABLE in_public (id int, code text);
CREATE UNIQUE INDEX ON in_public (code);
BEGIN;
COMMIT;
TRUNCATE accounts;
ANALYZE accounts;
COPY accounts FROM '/tmp/none.csv';
`

// prefilterInputs are every tree and file under testdata, and the mix.
func prefilterInputs(t *testing.T) []string {
	var paths []string
	for _, pattern := range []string{"../../testdata/layouts/*", "../../testdata/examples/*", "../../testdata/suppress", "../../testdata/replay/*.sql", "../../testdata/rules/*/*.sql"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	mix := filepath.Join(t.TempDir(), "mix.sql")
	if err := os.WriteFile(mix, []byte(prefilterMix), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(paths, mix)
}

// lintOutcome is everything a user could see from lint: the findings with
// their fixes and notes, the diagnostics, and the change history rules
// read.
func lintOutcome(t *testing.T, path string, fullParse bool) (string, int) {
	cat := catalog.New()
	r := replay.NewReplayer(cat)
	skipped := 0
	res := parse.Load([]string{path}, parse.LoadOptions{FullParse: fullParse, Apply: func(p *parse.Parsed) []scan.Diagnostic {
		if p.Skipped {
			skipped++
		}
		return r.ApplyParsed(p)
	}})
	findings := audit.Run(cat, audit.Rules, audit.Options{PGVersion: 16, History: r.History()})
	audit.SortFindings(findings)
	var b strings.Builder
	for _, v := range []any{findings, res.Diagnostics, r.History().Changes} {
		data, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String(), skipped
}

// TestPrefilterNeverChangesAFinding lints every fixture, the example tree
// and a mix of every statement kind the prefilter looks at, with and without
// the prefilter, and requires the same findings, notes and history.
func TestPrefilterNeverChangesAFinding(t *testing.T) {
	totalSkipped := 0
	for _, path := range prefilterInputs(t) {
		full, fullSkipped := lintOutcome(t, path, true)
		fast, skipped := lintOutcome(t, path, false)
		if fullSkipped != 0 {
			t.Fatalf("%s: FullParse skipped %d statements", path, fullSkipped)
		}
		if full != fast {
			t.Errorf("%s: the prefilter changed the outcome\nfull parse:\n%s\nprefiltered:\n%s", path, full, fast)
		}
		totalSkipped += skipped
	}
	if totalSkipped < 20 {
		t.Errorf("the prefilter skipped only %d statements; the comparison proves little", totalSkipped)
	}
}
