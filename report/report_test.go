package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

// sampleDocument is a hand-made run with one of everything the formats
// print: findings of each severity, related positions, notes, several fixes,
// a suppressed finding, a parse error and a note diagnostic.
func sampleDocument() *Document {
	file := "db/migrations/0042_events.up.sql"
	return &Document{
		Tool:    ToolName,
		Version: "v0.1.0-test",
		Inputs: []Input{{
			Path: "db/migrations", Layout: "golang-migrate",
			Files:   []string{"db/migrations/0001_init.up.sql", file},
			Skipped: 2, Statements: 1840,
		}},
		Findings: []audit.Finding{
			{
				Rule: "nullable-key", Severity: audit.Error,
				Object:  "public.events.index_unique_transaction_id",
				Columns: []string{"external_subscription_id"},
				Message: "events.index_unique_transaction_id (organization_id, external_subscription_id, transaction_id): " +
					"external_subscription_id may be NULL, so two events with the same organization_id and " +
					"transaction_id and no external_subscription_id are both accepted",
				Pos: catalog.Pos{File: file, Line: 12, Col: 1},
				Related: []audit.Related{{
					Pos:     catalog.Pos{File: "db/migrations/0057_events_nullable.up.sql", Line: 3, Col: 1},
					Message: "external_subscription_id lost NOT NULL here",
				}},
				Notes: []string{"CHECK events_sub_not_null is NOT VALID: existing rows were never checked, so it proves nothing"},
				Fixes: []audit.Fix{
					{
						Title: "rebuild the index NULLS NOT DISTINCT (PostgreSQL 15+)",
						SQL: "CREATE UNIQUE INDEX CONCURRENTLY index_unique_transaction_id_nnd ON events\n" +
							"  (organization_id, external_subscription_id, transaction_id) NULLS NOT DISTINCT;\n" +
							"DROP INDEX CONCURRENTLY index_unique_transaction_id;\n" +
							"ALTER INDEX index_unique_transaction_id_nnd RENAME TO index_unique_transaction_id;",
						Caveat: "NULL then equals NULL: right when NULL means \"no subscription\", wrong when it means " +
							"\"not applicable to this row\"",
						Precheck: "SELECT organization_id, transaction_id, count(*)\nFROM events\n" +
							"WHERE external_subscription_id IS NULL\nGROUP BY organization_id, transaction_id\nHAVING count(*) > 1;",
						NoTransaction: true,
					},
					{
						Title:         "add a partial unique index for the rows without external_subscription_id",
						SQL:           "CREATE UNIQUE INDEX CONCURRENTLY index_unique_transaction_id_null ON events (organization_id, transaction_id)\n  WHERE external_subscription_id IS NULL;",
						NoTransaction: true,
					},
					{
						Title: "make external_subscription_id NOT NULL",
						SQL: "ALTER TABLE events ADD CONSTRAINT events_external_subscription_id_not_null\n" +
							"  CHECK (external_subscription_id IS NOT NULL) NOT VALID;\n" +
							"ALTER TABLE events VALIDATE CONSTRAINT events_external_subscription_id_not_null;\n" +
							"ALTER TABLE events ALTER COLUMN external_subscription_id SET NOT NULL;\n" +
							"ALTER TABLE events DROP CONSTRAINT events_external_subscription_id_not_null;",
						Caveat: "fails while rows with a NULL external_subscription_id exist",
					},
				},
				Witness: &audit.Witness{Rows: []string{
					"INSERT INTO events (organization_id, external_subscription_id, transaction_id)\nVALUES (1, NULL, 'a');",
					"INSERT INTO events (organization_id, external_subscription_id, transaction_id)\nVALUES (1, NULL, 'a');",
				}},
				Proof: &audit.Proof{Verdict: audit.Proven, Server: "15.8", Fix: audit.FixRefused, FixSQLState: "23505",
					FixTitle: "rebuild the index NULLS NOT DISTINCT (PostgreSQL 15+)",
					Message:  "proven: PostgreSQL 15.8 accepted both rows; with the fix applied it refused them (23505 on the second row)"},
			},
			{
				Rule: "unique-dropped", Severity: audit.Warning,
				Object:  "public.charges.charges_request_id_key",
				Message: "charges_request_id_key is dropped and this migration creates no unique index over (request_id)",
				Pos:     catalog.Pos{File: "db/migrations/0060_charges.up.sql", Line: 4, Col: 3},
			},
			{
				Rule: "optional-unique", Severity: audit.Info,
				Object:  "public.users.users_email_key",
				Columns: []string{"email"},
				Message: "users.users_email_key (email): email may be NULL; unique when present",
				Pos:     catalog.Pos{File: "db/migrations/0061_users.up.sql", Line: 2, Col: 5},
			},
			{
				Rule: "nullable-key", Severity: audit.Warning,
				Object:     "public.tags.tags_owner_name",
				Message:    "tags.tags_owner_name (owner_id, name): owner_id may be NULL",
				Pos:        catalog.Pos{File: "db/migrations/0062_tags.up.sql", Line: 8, Col: 1},
				Suppressed: &audit.Suppression{Kind: "inline", Reason: "global tags have no owner", Pos: catalog.Pos{File: "db/migrations/0062_tags.up.sql", Line: 7, Col: 1}},
			},
		},
		Diagnostics: []Diagnostic{
			{Level: LevelError, Pos: catalog.Pos{File: "db/migrations/0070_broken.up.sql", Line: 3, Col: 14}, SQLState: "42601", Message: `syntax error at or near "TABEL"`},
			{Level: LevelNote, Pos: catalog.Pos{File: "db/migrations/0071_seed.up.sql", Line: 1, Col: 1}, Message: `skipped psql meta-command \connect`},
			{Level: LevelNote, Pos: catalog.Pos{File: "db/migrations/0072_alter.up.sql", Line: 2, Col: 1}, SQLState: "42P01", Message: `relation "ghosts" does not exist`},
		},
		Summary: Summary{Files: 212, Statements: 1840, Elapsed: 210 * time.Millisecond},
		Proving: &Proving{Server: "a throwaway cluster on 127.0.0.1:41234 from /usr/lib/postgresql/15/bin", Version: "15.8",
			Target: 16, TargetFrom: "--pg-version", Scope: "each witness ran on a copy of its table made from the model",
			Started: 1500 * time.Millisecond, Elapsed: 40 * time.Millisecond},
	}
}

func TestTextGolden(t *testing.T) {
	cases := []struct {
		name string
		opts Options
	}{
		{"text.golden", Options{}},
		{"text_verbose.golden", Options{Verbose: true}},
		{"text_color.golden", Options{Color: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := Text(&buf, sampleDocument(), c.opts); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", c.name), buf.Bytes())
		})
	}
}

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, sampleDocument(), Options{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report.json.golden", buf.Bytes())
}

func TestTextWithoutColorHasNoEscapes(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, sampleDocument(), Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("colour codes in uncoloured output:\n%q", buf.String())
	}
	buf.Reset()
	if err := Text(&buf, sampleDocument(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\x1b[31;1merror\x1b[") {
		t.Errorf("coloured output has no red error:\n%q", buf.String())
	}
}

func TestTextLinesFitWidth(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, sampleDocument(), Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		// SQL is printed as written and the summary is one line; only prose
		// is wrapped.
		if strings.HasPrefix(line, "    CREATE") || strings.HasPrefix(line, "    ALTER") || strings.Contains(line, " — ") {
			continue
		}
		if n := len([]rune(line)); n > DefaultWidth {
			t.Errorf("line of %d characters (limit %d): %q", n, DefaultWidth, line)
		}
	}
}

func TestTextHidesSuppressedAndNotes(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, sampleDocument(), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, absent := range []string{"tags_owner_name", "ghosts", "CREATE UNIQUE INDEX CONCURRENTLY index_unique_transaction_id_null"} {
		if strings.Contains(out, absent) {
			t.Errorf("output shows %q without -v:\n%s", absent, out)
		}
	}
	for _, present := range []string{"0070_broken.up.sql:3:14: error: syntax error", "or: add a partial unique index"} {
		if !strings.Contains(out, present) {
			t.Errorf("output lacks %q:\n%s", present, out)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	doc := &Document{Summary: Summary{Files: 212, Statements: 1840, Elapsed: 210 * time.Millisecond}}
	add := func(n int, s audit.Severity, rule string) {
		for range n {
			doc.Findings = append(doc.Findings, audit.Finding{Severity: s, Rule: rule})
		}
	}
	add(3, audit.Error, "nullable-key")
	add(1, audit.Warning, "nullable-key")
	add(1, audit.Info, "unused-ignore")
	add(3, audit.Info, "optional-unique")
	want := "3 errors, 1 warning, 4 info (optional-unique 3, unused-ignore 1) in 212 files (1,840 statements) — 0.21 s"
	if got := SummaryLine(doc, false); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	doc.MinSeverity = audit.Warning
	want = "3 errors, 1 warning, 4 info (optional-unique 3, unused-ignore 1) in 212 files (1,840 statements), " +
		"4 below --min-severity warning not shown — 0.21 s"
	if got := SummaryLine(doc, false); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	one := &Document{Summary: Summary{Files: 1, Statements: 1, Elapsed: 5 * time.Millisecond},
		Diagnostics: []Diagnostic{{Level: LevelNote}, {Level: LevelNote}, {Level: LevelError}}}
	want = "0 errors, 0 warnings, 0 info in 1 file (1 statement), 1 input error, 2 notes (-v to show) — 0.01 s"
	if got := SummaryLine(one, false); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	doc.MinSeverity = audit.Info
	doc.Summary.Unchanged = 37
	want = "3 errors, 1 warning, 4 info (optional-unique 3, unused-ignore 1) in 212 files (1,840 statements), 37 findings in unchanged files not shown — 0.21 s"
	if got := SummaryLine(doc, false); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, &Document{Tool: ToolName, Version: "devel"}, Options{}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, buf.Bytes())
	}
	for _, key := range []string{"inputs", "findings", "notes", "errors"} {
		if _, ok := got[key].([]any); !ok {
			t.Errorf("%s is %v, want an empty list", key, got[key])
		}
	}
}

func TestTextLiveFindingNamesObject(t *testing.T) {
	doc := &Document{Findings: []audit.Finding{{
		Rule: "invalid-unique-index", Severity: audit.Error, Object: "billing.charges.charges_request_id",
		Message: "charges_request_id is not valid: a concurrent build failed",
	}}}
	var buf bytes.Buffer
	if err := Text(&buf, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "billing.charges.charges_request_id: error invalid-unique-index\n  charges_request_id is not valid: a concurrent build failed\n\n"
	if !strings.HasPrefix(buf.String(), want) {
		t.Errorf("got\n%q\nwant prefix\n%q", buf.String(), want)
	}
	buf.Reset()
	if err := JSON(&buf, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"position": null`) {
		t.Errorf("a live finding's position should be null:\n%s", buf.String())
	}
}

// manyInfos is a schema with two holes and forty optional names, the case
// the text report must not bury.
func manyInfos() *Document {
	doc := &Document{Tool: ToolName, Version: "devel", Summary: Summary{Files: 1, Statements: 44}}
	for i := range 2 {
		doc.Findings = append(doc.Findings, audit.Finding{Rule: "nullable-key", Severity: audit.Warning,
			Object:  fmt.Sprintf("public.t.hole%d", i),
			Message: fmt.Sprintf("public.t.hole%d: namespace may be NULL, so two t with the same\naddress and no namespace are both accepted", i),
			Pos:     catalog.Pos{File: "m.sql", Line: i + 1, Col: 1}, Notes: []string{"a hole"},
			Fixes: []audit.Fix{{Title: "rebuild NULLS NOT DISTINCT", SQL: "CREATE UNIQUE INDEX ...;"}}})
	}
	for i := range 40 {
		doc.Findings = append(doc.Findings, audit.Finding{Rule: "optional-unique", Severity: audit.Info,
			Object:  fmt.Sprintf("public.t.optional%d", i),
			Message: fmt.Sprintf("public.t.optional%d: name may be NULL, so t without name are not deduplicated within scope_id; intended when a row may have no name", i),
			Pos:     catalog.Pos{File: "m.sql", Line: 10 + i, Col: 1}, Notes: []string{"nothing needs to change"}})
	}
	return doc
}

// TestTextInfoOneLine: each info finding is one line; errors and warnings
// keep their blocks; -v shows the info findings in full.
func TestTextInfoOneLine(t *testing.T) {
	doc := manyInfos()
	var buf bytes.Buffer
	if err := Text(&buf, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	infoLines := 0
	for _, l := range lines {
		if strings.Contains(l, ": info optional-unique ") {
			infoLines++
			if !strings.HasSuffix(l, "intended when a row may have no name") {
				t.Errorf("info line cut or wrapped: %q", l)
			}
		}
	}
	if infoLines != 40 || strings.Count(out, "nothing needs to change") != 0 {
		t.Errorf("%d info lines (want 40), notes shown %d times:\n%s", infoLines, strings.Count(out, "nothing needs to change"), out)
	}
	if strings.Count(out, "fix: rebuild NULLS NOT DISTINCT") != 2 || strings.Count(out, "note: a hole") != 2 {
		t.Errorf("the holes lost their blocks:\n%s", out)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "0 errors, 2 warnings, 40 info (optional-unique 40) in 1 file (44 statements) — 0.00 s") {
		t.Errorf("summary:\n%s", lines[len(lines)-1])
	}
	buf.Reset()
	if err := Text(&buf, doc, Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "note: nothing needs to change"); n != 40 {
		t.Errorf("-v shows %d info notes, want 40", n)
	}
}

// TestMinSeverityEveryFormat: --min-severity leaves the findings below it out
// of every format, and the counts still hold them.
func TestMinSeverityEveryFormat(t *testing.T) {
	for _, min := range []audit.Severity{audit.Info, audit.Warning, audit.Error} {
		doc := manyInfos()
		doc.MinSeverity = min
		shownHoles, shownInfos := 2, 40
		if min > audit.Info {
			shownInfos = 0
		}
		if min > audit.Warning {
			shownHoles = 0
		}
		outputs := map[string]*bytes.Buffer{}
		for _, f := range Formats() {
			outputs[f.Name] = &bytes.Buffer{}
			if err := f.Write(outputs[f.Name], doc, Options{}); err != nil {
				t.Fatal(err)
			}
		}
		for name, buf := range outputs {
			out := buf.String()
			holes, infos := countObjects(out, "hole"), countObjects(out, "optional")
			if holes != shownHoles || infos != shownInfos {
				t.Errorf("--min-severity %s, %s: %d holes and %d optional shown, want %d and %d", min, name, holes, infos, shownHoles, shownInfos)
			}
		}
		var doc2 struct {
			Summary struct {
				Infos    int `json:"info"`
				NotShown int `json:"not_shown"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(outputs["json"].Bytes(), &doc2); err != nil || doc2.Summary.Infos != 40 ||
			doc2.Summary.NotShown != 42-shownHoles-shownInfos {
			t.Errorf("--min-severity %s: json summary %+v (%v)", min, doc2.Summary, err)
		}
		if min == audit.Info && !strings.Contains(outputs["sarif"].String(), `"level": "note"`) {
			t.Error("SARIF lost the info findings' note level")
		}
	}
}

// countObjects counts the distinct objects public.t.<prefix>N named in out.
func countObjects(out, prefix string) int {
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`public\.t\.`+prefix+`\d+`).FindAllString(out, -1) {
		seen[m] = true
	}
	return len(seen)
}

// refutedFinding is a finding --prove refuted, with its witness.
func refutedFinding() audit.Finding {
	return audit.Finding{
		Rule: "nullable-key", Severity: audit.Warning,
		Object:  "public.aliases.aliases_key",
		Columns: []string{"namespace"},
		Message: "aliases.aliases_key (account, address, namespace): namespace may be NULL, so two aliases with the same " +
			"account and address and no namespace are both accepted",
		Pos:   catalog.Pos{File: "db/migrations/0063_aliases.up.sql", Line: 6, Col: 1},
		Notes: []string{"idemcheck reported a hole that the table does not have: please report it"},
		Witness: &audit.Witness{
			Rows: []string{
				"INSERT INTO aliases (account, address, namespace) VALUES (1, 'a', NULL);",
				"INSERT INTO aliases (account, address, namespace) VALUES (1, 'a', NULL);",
			},
			Notes: []string{"idemcheck does not evaluate CHECK address_shape for these rows; the scratch server does (--prove)"},
		},
		Proof: &audit.Proof{Verdict: audit.Refuted, Server: "15.8",
			Message: "refuted: PostgreSQL 15.8 refused the second row (23505 on aliases_key_live): the table does stop " +
				"these duplicates, so this finding is a false alarm and does not count toward --fail-on"},
	}
}

// TestProofInEveryFormat holds the formats to the witness and the verdict
// of a refuted finding: text prints both (the witness without -v, since
// --prove ran it), JSON and SARIF carry them as fields.
func TestProofInEveryFormat(t *testing.T) {
	doc := &Document{Tool: ToolName, Findings: []audit.Finding{refutedFinding()},
		Proving: &Proving{Server: "a throwaway cluster", Version: "15.8", Target: 15, Scope: "a proof covers the table's definition"}}
	var text bytes.Buffer
	if err := Text(&text, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  refuted: PostgreSQL 15.8 refused the second row (23505 on aliases_key_live)",
		"  witness (on a copy of the table without its foreign keys):\n    BEGIN;\n    INSERT INTO aliases",
		"prove: 0 proven, 1 refuted, 0 not proven on PostgreSQL 15.8, a throwaway cluster",
		"A refuted finding is a false alarm: it does not count toward --fail-on.",
	} {
		if !strings.Contains(text.String(), want) && !strings.Contains(strings.Join(strings.Fields(text.String()), " "), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := JSON(&js, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Findings []struct {
			Witness struct{ Label, SQL string }
			Proof   struct{ Verdict string }
		}
		Prove struct{ Refuted int }
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	if f := parsed.Findings[0]; f.Proof.Verdict != "refuted" || !strings.HasPrefix(f.Witness.SQL, "BEGIN;\nINSERT INTO aliases") ||
		f.Witness.Label != audit.WitnessLabel || parsed.Prove.Refuted != 1 {
		t.Errorf("JSON: %+v", parsed)
	}
	var sarif bytes.Buffer
	if err := SARIF(&sarif, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"proof": "refuted"`, `"witness": "BEGIN;\nINSERT INTO aliases`, "```sql\\nBEGIN;"} {
		if !strings.Contains(sarif.String(), want) {
			t.Errorf("SARIF lacks %q", want)
		}
	}
}
