package prove_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// TestLintAndInspectProveTheSame applies each rule fixture to a database
// of its own, inspects it, and proves the findings of both sources: the
// same findings get the same verdicts, and the fix the same outcome. The
// live catalog's defaults, CHECKs, enums and domains come from inspect's
// queries, the replayed one's from the migrations.
func TestLintAndInspectProveTheSame(t *testing.T) {
	s := scratch(t)
	files, err := filepath.Glob("../testdata/rules/*/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, path := range files {
		name := strings.TrimPrefix(path, "../testdata/rules/")
		// A subtest each, so that each database is dropped before the
		// next is made.
		t.Run(name, func(t *testing.T) {
			lintFindings, _ := lint(t, s.Major, path)
			if !slices.ContainsFunc(lintFindings, func(f audit.Finding) bool { return f.Witness != nil }) {
				t.Skip("no hole to prove")
			}
			dsn := pgtest.NewDatabase(t)
			if err := apply(dsn, statementsOf(t, path)); err != nil {
				t.Skipf("the server refuses the fixture by design: %v", err)
			}
			live := inspectFindings(t, dsn, s.Major)
			s.Prove(context.Background(), lintFindings)
			s.Prove(context.Background(), live)
			want, got := verdicts(lintFindings), verdicts(live)
			if !slices.Equal(want, got) {
				t.Errorf("the proofs differ\n lint:    %s\n inspect: %s", strings.Join(want, "\n          "), strings.Join(got, "\n          "))
			}
			compared += len(got)
		})
	}
	t.Logf("%d proofs compared", compared)
	if compared < 30 {
		t.Errorf("only %d proofs compared", compared)
	}
}

// verdicts lists, per finding that both sources report (nullable-key;
// lint's rules of migrations and queries have no live counterpart), the
// verdict and what the fix did.
func verdicts(fs []audit.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Proof == nil || audit.Lookup(f.Rule).Needs != audit.Either {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: %s, fix %d", f.Rule, f.Object, f.Proof.Verdict, f.Proof.Fix))
	}
	slices.Sort(out)
	return out
}

func statementsOf(t *testing.T, path string) []sqlparse.Statement {
	t.Helper()
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	var out []sqlparse.Statement
	sqlparse.Load([]string{path}, sqlparse.LoadOptions{Apply: func(p *sqlparse.Parsed) []sqlparse.Diagnostic {
		out = append(out, p.Statement)
		return r.ApplyParsed(p)
	}})
	return out
}

func apply(dsn string, statements []sqlparse.Statement) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, st := range statements {
		if _, err := conn.Exec(ctx, st.Text, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("%s: %v", st.Pos, err)
		}
	}
	return nil
}

// inspectFindings reads the database as inspect does and judges it, with
// witnesses.
func inspectFindings(t *testing.T, dsn string, version int) []audit.Finding {
	t.Helper()
	ctx := context.Background()
	sess, err := inspect.Open(ctx, inspect.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close(ctx)
	snap, err := sess.ReadCatalog(ctx, inspect.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(pipeline.Input{Catalog: snap.Catalog},
		pipeline.Options{Rules: audit.Rules, Audit: audit.Options{PGVersion: version, Live: true}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings()
}
