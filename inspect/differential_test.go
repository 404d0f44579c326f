package inspect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// differentialInputs are the SQL inputs lint and inspect must agree on: every
// rule fixture, every replay fixture and every example tree (the shared
// testdata/examples, when there is one, and inspect's own).
func differentialInputs(t *testing.T) []string {
	t.Helper()
	var inputs []string
	for _, pattern := range []string{"../testdata/rules/*/*.sql", "../testdata/replay/*.sql"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, files...)
	}
	trees, _ := filepath.Glob("../testdata/examples/*")
	for _, tree := range trees {
		if info, err := os.Stat(tree); err == nil && info.IsDir() {
			inputs = append(inputs, tree)
		}
	}
	if len(inputs) == 0 {
		t.Fatal("no fixtures found under ../testdata")
	}
	return inputs
}

// knownDisagreements are inputs where replay and the server disagree today,
// with why. Each must still disagree: when one is fixed, the test says so
// and the entry goes.
var knownDisagreements = map[string]string{}

// TestDifferential applies each input to a fresh database on the real
// server, inspects it, and requires the same findings (rule, object, key
// parts, severity) and the same catalog (catalogLines) as replaying the
// same input, and no replay note of a server error for statements the
// server ran. Where they differ, the server is right.
func TestDifferential(t *testing.T) {
	adminConn(t).Close(context.Background()) // skip without a server
	// agreed counts findings both sides reported, so that the comparison is
	// not of empty lists only.
	agreed := 0
	defer func() {
		if agreed == 0 && !t.Failed() {
			t.Error("no input produced any finding: the comparison proved nothing")
		}
	}()
	for _, input := range differentialInputs(t) {
		name := strings.TrimPrefix(input, "../testdata/")
		t.Run(name, func(t *testing.T) {
			replayed, hist, statements, notes := lintInput(t, input)
			if uses(statements, "NULLS NOT DISTINCT") {
				pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT")
			}
			if uses(statements, "DROP EXPRESSION") {
				pgtest.RequireVersion(t, 130000, "ALTER COLUMN ... DROP EXPRESSION")
			}
			dsn := newTestDB(t, "")
			if err := applyStatements(t, dsn, statements); err != nil {
				if why, known := knownDisagreements[name]; known {
					t.Logf("known disagreement: %s", why)
					return
				}
				if migrationOnlyFixture(name) {
					t.Skipf("fixture of a rule that reads migrations or queries only, with statements the server refuses by design: %v", err)
				}
				t.Fatal(err)
			}
			if why, known := knownDisagreements[name]; known {
				t.Fatalf("listed as a known disagreement (%s) but the server accepts it now: remove the entry", why)
			}
			for _, d := range notes {
				t.Errorf("replay raised what the server did not: %s", d)
			}
			s, snap := readTest(t, dsn, Filter{})
			if d := diffLines(catalogLines(snap.Catalog), catalogLines(replayed)); d != "" {
				t.Errorf("catalogs differ (- inspect, + lint):\n%s", d)
			}
			opts := audit.Options{PGVersion: s.ServerMajor(), History: hist}
			want := findingKeys(audit.Run(replayed, rulesFor(audit.Either), opts))
			opts.Live, opts.History = true, nil
			got := findingKeys(audit.Run(snap.Catalog, rulesFor(audit.Either), opts))
			if !slices.Equal(got, want) {
				t.Errorf("findings differ\n lint:    %s\n inspect: %s", strings.Join(want, "\n          "), strings.Join(got, "\n          "))
				return
			}
			agreed += len(got)
		})
	}
}

// lintInput replays input the way lint does, with the history replay
// recorded, and keeps the statements in the order they were applied, to run
// them on the server next, and the notes that carry a SQLSTATE: errors
// replay expects the server to raise.
func lintInput(t *testing.T, input string) (*catalog.Catalog, *catalog.History, []sqlparse.Statement, []sqlparse.Diagnostic) {
	t.Helper()
	cat := catalog.New()
	replayer := sqlparse.NewReplayer(cat)
	var statements []sqlparse.Statement
	loaded := sqlparse.Load([]string{input}, sqlparse.LoadOptions{Apply: func(p *sqlparse.Parsed) []sqlparse.Diagnostic {
		statements = append(statements, p.Statement)
		return replayer.ApplyParsed(p)
	}})
	var notes []sqlparse.Diagnostic
	for _, d := range loaded.Diagnostics {
		if d.Level == sqlparse.Error {
			t.Fatalf("lint: %s", d)
		}
		if d.SQLState != "" {
			notes = append(notes, d)
		}
	}
	return cat, replayer.History(), statements, notes
}

// catalogLines describes every relation of a catalog that both sources
// model, one line per object, sorted: tables and materialized views with
// their kind and parents, columns with what nullability rests on, indexes
// with everything the rules read, CHECKs and foreign keys with whether they
// were validated. Positions and history are left out: a live catalog has
// none.
func catalogLines(cat *catalog.Catalog) []string {
	var out []string
	kinds := map[catalog.TableKind]string{catalog.Ordinary: "table", catalog.Partitioned: "partitioned table", catalog.MaterializedView: "materialized view"}
	for _, t := range cat.Relations() {
		qn := t.QualifiedName()
		out = append(out, fmt.Sprintf("%s %s partition-of=%q inherits=%q", kinds[t.Kind], qn, t.PartitionOf, t.Inherits))
		for _, c := range t.Columns {
			gen := ""
			if c.Generation != nil {
				gen = " generated as " + c.Generation.String()
			}
			out = append(out, fmt.Sprintf("column %s.%s not-null=%v domain-not-null=%v identity=%v generated=%v%s",
				qn, c.Name, c.NotNull, c.DomainNotNull, c.Identity, c.Generated, gen))
		}
		for _, ix := range t.Indexes {
			pred := ""
			if ix.Predicate != nil {
				pred = " WHERE " + ix.Predicate.String()
			}
			out = append(out, fmt.Sprintf("index %s.%s (%s) include=%q%s unique=%v primary=%v nnd=%v valid=%v method=%s constraint=%q deferrable=%v deferred=%v parent=%q",
				qn, ix.Name, strings.Join(partStrings(ix.Parts), ", "), ix.Include, pred, ix.Unique, ix.Primary, ix.NullsNotDistinct,
				ix.Valid, ix.Method, ix.Constraint, ix.Deferrable, ix.InitiallyDeferred, ix.ParentIndex))
		}
		for _, ck := range t.Checks {
			out = append(out, fmt.Sprintf("check %s.%s valid=%v", qn, ck.Name, ck.Validated))
		}
		for _, fk := range t.ForeignKeys {
			out = append(out, fmt.Sprintf("foreign key %s.%s (%s) references %s (%s) deferrable=%v deferred=%v valid=%v",
				qn, fk.Name, strings.Join(fk.Columns, ", "), fk.RefTable, strings.Join(fk.RefColumns, ", "), fk.Deferrable, fk.InitiallyDeferred, fk.Validated))
		}
	}
	slices.Sort(out)
	return out
}

func partStrings(parts []catalog.IndexPart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.String()
	}
	return out
}

// diffLines lists the lines only in want (-) and only in got (+).
func diffLines(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			b.WriteString("  - " + w + "\n")
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			b.WriteString("  + " + g + "\n")
		}
	}
	return b.String()
}

// applyStatements runs each statement on its own (CREATE INDEX CONCURRENTLY
// cannot run in a transaction block).
func applyStatements(t *testing.T, dsn string, statements []sqlparse.Statement) error {
	t.Helper()
	conn := connectTo(t, dsn)
	for _, st := range statements {
		if _, err := conn.Exec(context.Background(), st.Text, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("%s: the server rejects the statement that replay accepted: %v", st.Pos, err)
		}
	}
	return nil
}

// migrationOnlyFixture reports whether name is a fixture of a rule that
// only runs on replayed migrations (such as on-conflict-hole, whose cases
// include the INSERTs PostgreSQL refuses with 42P10).
func migrationOnlyFixture(name string) bool {
	dir, _, ok := strings.Cut(strings.TrimPrefix(name, "rules/"), "/")
	if !ok || !strings.HasPrefix(name, "rules/") {
		return false
	}
	r := audit.Lookup(dir)
	return r != nil && r.Needs == audit.Migrations
}

// rulesFor lists the registered rules that can run on both sources.
func rulesFor(needs audit.Needs) []*audit.Rule {
	var out []*audit.Rule
	for _, r := range audit.Rules {
		if r.Needs == needs {
			out = append(out, r)
		}
	}
	return out
}

// findingKeys are the parts of findings that must match across sources.
func findingKeys(fs []audit.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %s %s (%s)", f.Severity, f.Rule, f.Object, strings.Join(f.Columns, ", "))
	}
	slices.Sort(out)
	return out
}

// uses reports whether any statement holds the words of a feature that
// older servers refuse, so that the fixture is skipped below that version.
func uses(statements []sqlparse.Statement, feature string) bool {
	for _, st := range statements {
		if strings.Contains(strings.ToUpper(st.Text), feature) {
			return true
		}
	}
	return false
}
