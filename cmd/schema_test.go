package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
)

// The JSON Schemas of docs/schema are the output contract
// (docs/output-contract.md). These tests validate what the commands really
// write on the shipped example (testdata/examples/payments) against them:
// lint in every variation that adds properties, inspect on a database built
// from the example (with and without --data), a run stopped by an error,
// and race http, sql and demo. The schemas name every property, so a
// property a command adds without documenting it fails here.

const schemaDir = "../docs/schema"

// loadSchema compiles one schema of docs/schema.
func loadSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(schemaDir, name))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	s, err := c.Compile(path)
	if err != nil {
		t.Fatalf("%s does not compile: %v", name, err)
	}
	return s
}

// validate checks that out, a command's stdout, is one JSON document the
// schema accepts.
func validate(t *testing.T, s *jsonschema.Schema, what, out string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", what, err, out)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s: the output breaks %s:\n%v", what, s.Location, err)
	}
}

// TestSchemaRejectsWhatItShould: the schemas are not so loose that any
// document passes: an unknown property, a missing fingerprint and another
// format_version are all refused.
func TestSchemaRejectsWhatItShould(t *testing.T) {
	s := loadSchema(t, "report.schema.json")
	r := run(t, "lint", "--format", "json", paymentsTree)
	validate(t, s, "lint", r.stdout)
	for name, edit := range map[string]func(map[string]any){
		"an unknown property":   func(d map[string]any) { d["extra"] = 1 },
		"format_version 2":      func(d map[string]any) { d["format_version"] = 2 },
		"no fingerprint":        func(d map[string]any) { delete(d["findings"].([]any)[0].(map[string]any), "fingerprint") },
		"a severity it has not": func(d map[string]any) { d["findings"].([]any)[0].(map[string]any)["severity"] = "fatal" },
	} {
		var d map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		b, _ := json.Marshal(d)
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		if err := s.Validate(doc); err == nil {
			t.Errorf("the report schema accepts a document with %s", name)
		}
	}
	race := loadSchema(t, "race.schema.json")
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"format_version":1,"tool":"idemcheck","version":"devel","target":"x","n":2,"sync":"h1","rounds":[],"verdict":{"status":"holds","sentence":"s"},"extra":true}`))
	if err := race.Validate(doc); err == nil {
		t.Error("the race schema accepts an unknown property")
	}
}

// TestLintJSONMatchesSchema runs lint on the example in the variations that
// add properties: plain, -v, below a --min-severity, with a baseline, with
// a file that does not parse (errors, sqlstate) and with ignore directives
// (suppressed), and as the error document of a run that could not start.
func TestLintJSONMatchesSchema(t *testing.T) {
	s := loadSchema(t, "report.schema.json")
	dir := t.TempDir()
	baseline := filepath.Join(dir, "baseline.json")
	if r := run(t, "lint", "--write-baseline", baseline, paymentsTree); r.code != ExitOK {
		t.Fatalf("--write-baseline: exit %d\n%s", r.code, r.stder)
	}
	broken := writeFile(t, "broken.sql", brokenSQL+holeSQL)
	ignored := writeFile(t, "ignored.sql", "-- idemcheck:ignore nullable-key the key is always set by the API\n"+holeSQL+
		"-- idemcheck:ignore optional-unique nothing here\nCREATE TABLE x (id int);\n")
	cases := map[string][]string{
		"lint":             {"lint", "--format", "json", paymentsTree},
		"lint -v":          {"lint", "--format", "json", "-v", paymentsTree},
		"lint below":       {"lint", "--format", "json", "--min-severity", "error", paymentsTree},
		"lint baseline":    {"lint", "--format", "json", "--baseline", baseline, paymentsTree},
		"lint broken":      {"lint", "--format", "json", broken},
		"lint suppressed":  {"lint", "--format", "json", ignored},
		"lint pg 14":       {"lint", "--format", "json", "--pg-version", "14", paymentsTree},
		"lint no such dir": {"lint", "--format", "json", filepath.Join(dir, "nonexistent")},
		"lint bad flag":    {"lint", "--format", "json", "--fail-on", "sometimes", paymentsTree},
	}
	for name, args := range cases {
		r := run(t, args...)
		if r.code != ExitOK && r.code != ExitFindings && r.code != ExitUsage {
			t.Errorf("%s: exit %d", name, r.code)
		}
		validate(t, s, name, r.stdout)
	}
	// The input account is in lint's JSON, and a partial read is marked.
	r := run(t, "lint", "--format", "json", paymentsTree)
	var doc struct {
		InputAccount *struct {
			Replayed int `json:"replayed"`
			Skipped  int `json:"skipped"`
			Paths    []struct {
				Partial bool `json:"partial"`
			} `json:"paths"`
		} `json:"input_account"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.InputAccount == nil {
		t.Fatalf("lint JSON has no input_account (%v):\n%s", err, r.stdout)
	}
	if a := doc.InputAccount; a.Replayed != 16 || a.Skipped != 16 || len(a.Paths) != 1 || a.Paths[0].Partial {
		t.Errorf("input_account %+v: want 16 replayed and 16 skipped (the down files) in one path, not partial", *a)
	}
}

// TestErrorReportPerFormat: a run stopped before its report (here, no
// server to connect to) still writes a valid document in the machine
// formats, holding the error, and exits 2; GitLab's is the empty list.
func TestErrorReportPerFormat(t *testing.T) {
	dsn := "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"
	r := run(t, "inspect", "--format", "gitlab", "--dsn", dsn)
	assertCode(t, r, ExitUsage)
	if r.stdout != "[]\n" {
		t.Errorf("gitlab report on an input error: %q, want []", r.stdout)
	}
	r = run(t, "inspect", "--format", "json", "--dsn", dsn)
	assertCode(t, r, ExitUsage)
	validate(t, loadSchema(t, "report.schema.json"), "inspect with no server", r.stdout)
	assertContains(t, "json", r.stdout, `"input_errors": 1`, "cannot connect")
	r = run(t, "inspect", "--format", "sarif", "--dsn", dsn)
	assertCode(t, r, ExitUsage)
	assertContains(t, "sarif", r.stdout, `"executionSuccessful": false`, "cannot connect")
	for _, format := range []string{"text", "github"} {
		if r = run(t, "inspect", "--format", format, "--dsn", dsn); r.stdout != "" {
			t.Errorf("--format %s wrote %q on an error; its report is the message on stderr", format, r.stdout)
		}
	}
}

// TestInspectJSONMatchesSchema runs inspect on a database built from the
// example, with and without --data.
func TestInspectJSONMatchesSchema(t *testing.T) {
	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT (the example's api_tokens)")
	s := loadSchema(t, "report.schema.json")
	dsn := pgtest.NewDatabase(t)
	applyTree(t, dsn, paymentsTree, nil)
	pgtest.Exec(t, dsn, `INSERT INTO accounts (name, email) VALUES ('a', NULL), ('b', NULL);`)
	for _, extra := range [][]string{nil, {"--data"}, {"--data", "-v", "--schema", "public"}} {
		args := append([]string{"inspect", "--dsn", dsn, "--format", "json"}, extra...)
		code, out, errOut := runInspectCmd(t, nil, args...)
		if code != ExitFindings {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		validate(t, s, strings.Join(args[3:], " "), out)
		assertContains(t, "inspect", out, `"database": {`)
		if len(extra) > 0 && !strings.Contains(out, `"null_rows"`) {
			t.Errorf("%v: no data counts to validate:\n%s", args, out)
		}
	}
}

// TestRaceJSONMatchesSchema validates race demo, race http (with the
// conformance checks and an oracle) and race sql (a broken claim, whose
// diagnosis names the index, and one that holds) on the example.
func TestRaceJSONMatchesSchema(t *testing.T) {
	s := loadSchema(t, "race.schema.json")
	code, out, errs := runCmd(t, "race", "demo", "--format", "json")
	if code != ExitOK {
		t.Fatalf("race demo: exit %d\n%s", code, errs)
	}
	validate(t, s, "race demo", out)

	gate, err := httprace.StartDemoServer(&httprace.Gate{})
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	key := "Idempotency-Key: {{key}}"
	for name, args := range map[string][]string{
		"race http oracle":      {"race", "http", "--format", "json", "-H", key, "--rounds", "3", "--effect-url", gate.EffectsURL, gate.URL},
		"race http conformance": {"race", "http", "--format", "json", "-H", key, "--rounds", "2", "--conformance", "-n", "3", gate.URL},
	} {
		code, out, errs := runCmd(t, args...)
		if code == ExitUsage {
			t.Fatalf("%s: exit 2\n%s", name, errs)
		}
		validate(t, s, name, out)
		for _, want := range []string{`"calibration"`, `"verdict"`} {
			assertContains(t, name, out, want)
		}
		if strings.Contains(name, "conformance") {
			assertContains(t, name, out, `"conformance"`)
		}
	}

	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT (the example's api_tokens)")
	dsn := pgtest.NewDatabase(t)
	applyTree(t, dsn, paymentsTree, nil)
	pgtest.Exec(t, dsn, `INSERT INTO accounts (name) VALUES ('a');`)
	for name, claim := range map[string]string{
		"race sql broken": `INSERT INTO charge_claims (account_id, kind, address, namespace)
			SELECT id, 'charge', {{key}}, NULL FROM accounts WHERE name = 'a' ON CONFLICT DO NOTHING RETURNING id`,
		"race sql holds": `INSERT INTO charge_claims (account_id, kind, address, namespace)
			SELECT id, 'charge', {{key}}, 'ledger' FROM accounts WHERE name = 'a' ON CONFLICT DO NOTHING RETURNING id`,
	} {
		code, out, errs := runInspectCmd(t, nil, "race", "sql", "--format", "json", "--dsn", dsn, "--rounds", "3", claim)
		if code == ExitUsage {
			t.Fatalf("%s: exit 2\n%s", name, errs)
		}
		validate(t, s, name, out)
		if name == "race sql broken" && !strings.Contains(out, `"diagnosis"`) {
			t.Errorf("%s: no diagnosis to validate:\n%s", name, out)
		}
	}
}

// TestSchemasAreTheDocumentedOnes: the schemas the docs point at exist and
// are valid JSON Schemas of draft 2020-12.
func TestSchemasAreTheDocumentedOnes(t *testing.T) {
	for _, name := range []string{"report.schema.json", "race.schema.json"} {
		b, err := os.ReadFile(filepath.Join(schemaDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"$schema": "https://json-schema.org/draft/2020-12/schema"`) {
			t.Errorf("%s does not declare draft 2020-12", name)
		}
		loadSchema(t, name)
	}
}
