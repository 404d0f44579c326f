// Package claimaudit gives a raced SQL claim the audit's own words: when
// more than one claim won a round, the diagnosis (sqlrace.DiagnoseRows)
// names the unique index that should have refused, and this package
// attaches what the audit says of that index (nullable-key or
// optional-unique) and of the raced statement (on-conflict-hole), so that
// the race and the audit tell the same story.
//
// `idemcheck race sql` and the idemtest/idemsql test library share it. It
// parses the statement with pg_query (through sqlparse) and so needs cgo;
// sqlrace itself does not import it.
package claimaudit

import (
	"context"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/racetest/sqlrace"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// CatalogReader reads the live catalog, narrowed by a filter: an
// inspect.Session's ReadCatalog, or a snapshot read earlier.
type CatalogReader func(ctx context.Context, f inspect.Filter) (*inspect.Snapshot, error)

// UniqueKeys is sqlrace.Probe.UniqueKeys for the claim stmt: it reads one
// table's unique indexes through read and attaches the audit's words to
// each, for the index alone (nullable-key or optional-unique) and for the
// raced statement when it is an INSERT ... ON CONFLICT whose arbiter it can
// leave NULL (on-conflict-hole).
func UniqueKeys(read CatalogReader, stmt string) func(ctx context.Context, schema, table string) ([]sqlrace.UniqueKey, error) {
	return func(ctx context.Context, schema, table string) ([]sqlrace.UniqueKey, error) {
		snap, err := read(ctx, inspect.Filter{Tables: []string{globEscape(schema) + "." + globEscape(table)}})
		if err != nil {
			return nil, err
		}
		t := snap.Catalog.ResolveTable(schema, table)
		if t == nil {
			return nil, nil
		}
		// An index with both a hole and an optional part is quoted for
		// its hole.
		holes := map[string]audit.Finding{}
		for _, f := range audit.Run(snap.Catalog, []*audit.Rule{audit.NullableKey, audit.OptionalUnique}, audit.Options{Live: true}) {
			if prev, ok := holes[f.Object]; !ok || prev.Rule != audit.NullableKey.ID {
				holes[f.Object] = f
			}
		}
		claims := claimFindings(snap.Catalog, stmt)
		var keys []sqlrace.UniqueKey
		for _, ix := range t.UniqueIndexes() {
			object := t.Schema + "." + t.Name + "." + ix.Name
			keys = append(keys, uniqueKey(ix, holes[object], claims[object]))
		}
		return keys, nil
	}
}

// claimFindings runs on-conflict-hole on the raced statement against the
// live catalog, by index: replay records an INSERT ... ON CONFLICT as a
// query without changing the schema.
func claimFindings(cat *catalog.Catalog, stmt string) map[string]string {
	out := map[string]string{}
	r := sqlparse.NewReplayer(cat)
	r.Apply(sqlparse.NewStatement("race sql", stmt, 0))
	if len(r.History().Queries) == 0 {
		return out
	}
	for _, f := range audit.Run(cat, []*audit.Rule{audit.OnConflictHole}, audit.Options{History: r.History()}) {
		out[f.Object] = f.Message
	}
	return out
}

func uniqueKey(ix *catalog.Index, hole audit.Finding, claim string) sqlrace.UniqueKey {
	k := sqlrace.UniqueKey{
		Name: ix.Name, NullsNotDistinct: ix.NullsNotDistinct,
		Deferrable: ix.Deferrable, InitiallyDeferred: ix.InitiallyDeferred,
		Partial: ix.Predicate != nil, Valid: ix.Valid && ix.Ready,
		Hole: hole.Message, HoleRule: hole.Rule, Claim: claim,
	}
	for _, p := range ix.Parts {
		k.Columns = append(k.Columns, p.Column)
	}
	return k
}

// globEscape keeps a table name with *, ? or [ from being read as a pattern.
func globEscape(name string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(name)
}
