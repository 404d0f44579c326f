package audit

import (
	"fmt"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// KeyWithoutUnique flags columns that hold idempotency or dedupe keys, by
// name and by structure (key_columns.go), that no unique index has as a key
// part.
var KeyWithoutUnique = &Rule{
	ID:    "key-without-unique",
	Title: "an idempotency or dedupe key column with no unique index",
	Doc: `A column named idempotency_key, dedup_key, client_request_id and the like says
that a repeated request must not create a second row. Without a unique index over
it the only thing that says so is application code: SELECT, then INSERT when
nothing was found. Two requests that arrive together both find nothing and both
insert.

Give the key a unique index, scoped the way the key is scoped (per account, per
tenant), with every key part NOT NULL, and let the INSERT be the check.

A column is a key by its name and its structure together:
- its name has an idempotency or dedupe word and ends in a key noun
  (idempotency_key, dedupe_hash), or it is a request id (request_id,
  client_request_id);
- its type is a key-like scalar (text, varchar, uuid, bytea, an integer, or a
  domain over one): never an array, json, boolean, timestamp or enum, so
  idempotency_keys text[], dedup_enabled boolean and idempotency_key_expires_at
  are not keys;
- it is no reference: not a foreign key column, and not named {table}_id after
  a table that exists (merge_request_id beside merge_requests).

The rule stays silent where the structure shows that the key is gated elsewhere
or repeated on purpose:
- the primary key is natural (no identity column and no id, uuid or {table}_id
  column in it): a repeated request finds its row by the primary key, and the
  key column records which request made the row (create_request_id in a table
  keyed by (namespace_id, workflow_id));
- fan-out, one key on many rows by design: the table references a parent row
  that has the same key column (a delivery carries its event's key, a trace
  event its run's; the parent is judged on its own), or a boolean column marks
  the rows kept as duplicates (is_duplicate_event). A reference is a foreign
  key, or a column {name}_id after a table named {name} or, failing that, named
  with the first word of the table's own name (TaskEvent.runId and TaskRun);
- a log: a partitioned table each of whose unique indexes holds a timestamp,
  the partition key. Every unique index there must hold it, so a key can only be
  unique per period, and one that must be unique is claimed in a table of its
  own;
- a copy of the table's key: another key column whose name is part of this
  one's (idempotency_key in inactive_idempotency_key) is kept unique without a
  hole, and this one holds the key parked after it expired, or a previous one;
- a bare request id (request_id, create_request_id) that no index reads: an
  application that deduplicates by a column looks rows up by it, and without an
  index it is a correlation id kept for tracing (such as the id of a SAML
  request the server itself sends);
- a key that no index reads, in a schema with a key table (its name says
  idempotency or dedupe, and a unique index without a hole covers its key): the
  key is claimed there, in the same transaction as the row, and this column
  records which key made the row.

` + wordListDoc(
		wordList{"idempotency or dedupe words (a word of the name starts with one)", keyPurposeStems},
		wordList{"key nouns (the last word of the name)", keyNouns},
		wordList{"request ids: the last words request and id; strong with", clientWords},
		wordList{"key-like types", keyTypes},
		wordList{"surrogate primary key columns (also {table}_id, {table}_uuid, identity)", surrogateNames},
		wordList{"duplicate flags (a word of a boolean column's name)", duplicateFlagWords},
	),
	Bad: `CREATE TABLE payments (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL
);
CREATE INDEX payments_idempotency_key ON payments (idempotency_key);`,
	Good: `CREATE TABLE payments (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL
);
CREATE UNIQUE INDEX payments_idempotency_key ON payments (account_id, idempotency_key);`,
	Severity: Warning,
	Needs:    Either,
	Run:      runKeyWithoutUnique,
}

func runKeyWithoutUnique(p *Pass) {
	cat := p.Catalog
	for _, t := range cat.Tables() {
		// A partition has its parent's columns: the parent reports.
		if t.PartitionOf != "" {
			continue
		}
		for _, col := range t.Columns {
			if !unguardedKey(p, t, col) {
				continue
			}
			p.Report(Finding{
				Object:  t.QualifiedName() + "." + col.Name,
				Columns: []string{col.Name},
				Message: fmt.Sprintf("%s.%s is named like an idempotency or dedupe key, but no unique index has it as a key "+
					"part, so two %s with the same %s are both accepted: the uniqueness lives only in an application check",
					t.DisplayName(), catalog.QuoteIdent(col.Name), rowNoun(t), col.Name),
				Pos:   col.Pos,
				Fixes: []Fix{fixes.UniqueKey(p.namer(t), t, col, keyScope(t, col.Name))},
			})
		}
	}
}

// unguardedKey reports whether col holds idempotency or dedupe keys that
// nothing in the schema keeps unique (the Doc above, point by point).
func unguardedKey(p *Pass, t *catalog.Table, col *catalog.Column) bool {
	cat := p.Catalog
	strength := keyColumn(cat, t, col)
	if strength == notKeyName || uniqueOver(t, col.Name) || naturalPrimaryKey(t) != nil {
		return false
	}
	if duplicateFlag(cat, t) != nil || inheritedKey(cat, t, col.Name) != nil || timePartitioned(cat, t) ||
		copiedKey(p, t, col) != nil {
		return false
	}
	if readByIndex(t, col.Name) == nil && (strength == weakKeyName || keyStore(p, t) != nil) {
		return false
	}
	return true
}

// uniqueOver reports whether some unique index of t has a key part that
// reads column (INCLUDE columns enforce nothing).
func uniqueOver(t *catalog.Table, column string) bool {
	for _, ix := range t.UniqueIndexes() {
		for _, part := range ix.Parts {
			for _, c := range part.Columns() {
				if c == column {
					return true
				}
			}
		}
	}
	return false
}

// scopeNotNull reports whether every part other than the key column is a
// NOT NULL column: a scope that may be NULL would make the new index leak.
func scopeNotNull(t *catalog.Table, parts []catalog.IndexPart, key string) bool {
	for _, p := range parts {
		if c := t.Column(p.Column); p.Column != key && (c == nil || !c.IsNotNull()) {
			return false
		}
	}
	return true
}

// keyScope is the key the fix makes unique: the key parts of a plain index
// that already has the column (the author's own scope, such as account_id
// first), or the column alone.
func keyScope(t *catalog.Table, column string) []catalog.IndexPart {
	for _, ix := range t.Indexes {
		if ix.Unique || ix.Primary || ix.Predicate != nil || !nullsafe.PartIn(catalog.IndexPart{Column: column}, ix.Parts) {
			continue
		}
		if fixes.AllColumns(ix.Parts) && scopeNotNull(t, ix.Parts, column) {
			return append([]catalog.IndexPart(nil), ix.Parts...)
		}
	}
	return []catalog.IndexPart{{Column: column}}
}
