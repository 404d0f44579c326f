package audit

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// IdempotencyTableShape checks a table that stores idempotency keys against
// the four things the pattern needs (docs/rules.md): a unique key without holes,
// a lease or expiry on the in-progress state, the stored response with its
// status code, and a fingerprint of the request.
var IdempotencyTableShape = &Rule{
	ID:    "idempotency-table-shape",
	Title: "an idempotency-key table lacks what the pattern needs",
	Doc: `An idempotency-key table turns a retried request into the first request's answer.
That takes four things, and each missing one is a way for a retry to do the work
twice or answer wrongly:

1. a unique index over the key (scoped per account when keys are) with no NULL
   hole, so that the INSERT of the key is the lock;
2. a lease or expiry on the in-progress state (locked_at, expires_at), so that a
   request that died holding the key does not block it forever, and a retry can
   tell "still running" from "abandoned";
3. the stored response including its status code (response_code, response_body),
   so that a retry gets the same answer, failures included;
4. a fingerprint of the request (request_fingerprint), so that the same key sent
   with a different payload is refused instead of answered with another
   request's response.

Each missing point is one line of the finding, naming the column expected.

Only tables that model claim state are checked: a key column (by name and
structure, as key-without-unique reads it) and a status, state or in-progress
column, in a table whose name says idempotency or dedupe, whose primary key
holds the key, or that keeps a stored response or a request fingerprint. A
resource that carries its own key, status and leases (a run with an optional
idempotency key, locked to a worker) is not a key store: its status is the
resource's, and the key is gated by its unique index (nullable-key and
optional-unique judge that). Neither is a job or run table whose optional
key is unique when present per parent, response columns or not: a run that
supplies no key is not deduplicated, by design, and NOT NULL, a global
unique index and response columns would break those runs. A key table without a state column is written in the
same transaction as the resource it guards: the key commits with the resource
or not at all, nothing is ever left in progress, and none of this is needed.
A configuration table that lists header names (text[]) has no key column.

` + wordListDoc(
		wordList{"idempotency or dedupe words (column or table name)", keyPurposeStems},
		wordList{"key nouns (the last word of a key column's name; in a key table, key or *_key)", keyNouns},
		wordList{"claim state (a word of the column's name; not a timestamp)", stateWords},
		wordList{"lease or expiry (part of a column name)", leaseColumn.fragments},
		wordList{"stored status code (part of a column name; never a claim state)", statusColumn.fragments},
		wordList{"stored body (part of a column name)", bodyColumn.fragments},
		wordList{"request fingerprint (part of a column name)", fingerprintColumn.fragments},
	),
	Bad: `CREATE TABLE idempotency_keys (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    status text NOT NULL DEFAULT 'started',
    response_body jsonb
);
CREATE INDEX idempotency_keys_key ON idempotency_keys (account_id, idempotency_key);`,
	Good: `CREATE TABLE idempotency_keys (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    status text NOT NULL DEFAULT 'started',
    request_fingerprint text NOT NULL,
    locked_at timestamptz,
    response_code integer,
    response_body jsonb,
    PRIMARY KEY (account_id, idempotency_key)
);`,
	Severity: Warning,
	Needs:    Either,
	Run:      runIdempotencyTableShape,
}

func runIdempotencyTableShape(p *Pass) {
	for _, t := range p.Catalog.Tables() {
		if t.PartitionOf != "" {
			continue
		}
		key := keyStoreColumn(p.Catalog, t)
		if key == nil || !storesKeys(t, key) || optionalDedupKey(p, t, key) {
			continue
		}
		state := stateColumn(p.Catalog, t)
		if state == nil {
			continue
		}
		gaps := missingShape(p, t, key)
		if len(gaps) == 0 {
			continue
		}
		var lines []string
		for _, g := range gaps {
			lines = append(lines, "- "+g.line)
		}
		p.Report(Finding{
			Object: t.QualifiedName(),
			Message: fmt.Sprintf("%s stores idempotency keys (%s) and their state (%s) but lacks what the pattern needs:\n%s",
				t.DisplayName(), key.Name, state.Name, strings.Join(lines, "\n")),
			Pos:   t.Pos,
			Fixes: []Fix{fixes.Shape(p.namer(t), t, key, fixGaps(gaps))},
		})
	}
}

// shapeGap is one point of the pattern a table lacks: the line the finding
// shows and the columns that would close it.
type shapeGap struct {
	line    string
	columns []string // "name type" of columns to add
	unique  bool     // the key needs a unique index without a hole
}

// fixGaps are the gaps as the fix builder takes them.
func fixGaps(gaps []shapeGap) []fixes.ShapeGap {
	out := make([]fixes.ShapeGap, len(gaps))
	for i, g := range gaps {
		out[i] = fixes.ShapeGap{Columns: g.columns, Unique: g.unique}
	}
	return out
}

// storesKeys reports whether t is a store of idempotency keys rather than a
// table of business rows that carries a key for dedupe (payments with an
// idempotency_key column): its name says so, its rows are the keys (the key
// is part of its primary key), or it keeps what only a key store keeps, a
// stored response or a request fingerprint. A lease alone does not make a
// key store: a resource has leases of its own (a run locked to a worker)
// and its key's expiry (idempotency_key_expires_at), and its status is the
// resource's, not a claim's.
func storesKeys(t *catalog.Table, key *catalog.Column) bool {
	if tableSaysKeys(t) {
		return true
	}
	for _, ix := range t.Indexes {
		if ix.Primary && nullsafe.PartIn(catalog.IndexPart{Column: key.Name}, ix.Parts) {
			return true
		}
	}
	for _, c := range []shapeColumn{statusColumn, bodyColumn, fingerprintColumn} {
		if hasColumn(t, c) {
			return true
		}
	}
	return false
}

// optionalDedupKey reports whether key is a row's own optional dedupe key
// rather than the key of a key store: the table's name does not say it
// stores keys, the key may be NULL, and a unique index over it reads unique
// when present with only scope beside it (optional-unique: a run per job
// that supplies no key is not deduplicated, by design). Such a table is a
// job or run table; SET NOT NULL, a global unique index and response
// columns would break the runs without a key.
func optionalDedupKey(p *Pass, t *catalog.Table, key *catalog.Column) bool {
	if tableSaysKeys(t) || key.IsNotNull() {
		return false
	}
	part := catalog.IndexPart{Column: key.Name}
	for _, ix := range t.UniqueIndexes() {
		if ix.Primary || !nullsafe.PartIn(part, ix.Parts) {
			continue
		}
		if h := p.holeOf(t, ix).narrow(false); h != nil && nullsafe.PartIn(part, h.Parts) {
			return true
		}
	}
	return false
}

// missingShape lists the points of the pattern t lacks, in the order of
// docs/rules.md.
func missingShape(p *Pass, t *catalog.Table, key *catalog.Column) []shapeGap {
	var out []shapeGap
	if !holeFreeUniqueOver(p, t, key.Name) {
		out = append(out, shapeGap{line: "no unique index over " + key.Name + " without a NULL hole, so the INSERT of " +
			"the key is not a lock (expected UNIQUE (" + key.Name + "), scoped per account if keys are, every part NOT NULL)",
			unique: true})
	}
	if !hasColumn(t, leaseColumn) {
		out = append(out, shapeGap{line: "no lease or expiry on the in-progress state, so a request that died keeps " +
			"the key forever (expected locked_at or expires_at)", columns: []string{"locked_at timestamptz"}})
	}
	status, body := hasColumn(t, statusColumn), hasColumn(t, bodyColumn)
	switch {
	case !status && !body:
		out = append(out, shapeGap{line: "no stored response, so a retry cannot be answered as the first request was " +
			"(expected response_code and response_body)", columns: []string{"response_code integer", "response_body jsonb"}})
	case !status:
		out = append(out, shapeGap{line: "the stored response has no status code, so a retry of a request that failed " +
			"is answered as if it succeeded (expected response_code)", columns: []string{"response_code integer"}})
	}
	if !hasColumn(t, fingerprintColumn) {
		out = append(out, shapeGap{line: "no request fingerprint, so the same key sent with a different payload gets " +
			"another request's response (expected request_fingerprint)", columns: []string{"request_fingerprint text"}})
	}
	return out
}

// holeFreeUniqueOver reports whether a unique index of t has column as a
// key part and lets no row escape through a NULL.
func holeFreeUniqueOver(p *Pass, t *catalog.Table, column string) bool {
	for _, ix := range t.UniqueIndexes() {
		if !nullsafe.PartIn(catalog.IndexPart{Column: column}, ix.Parts) {
			continue
		}
		if ix.NullsNotDistinct || p.tableHoleOf(t, ix) == nil {
			return true
		}
	}
	return false
}

func hasColumn(t *catalog.Table, want shapeColumn) bool {
	for _, col := range t.Columns {
		n := strings.ToLower(col.Name)
		for _, f := range want.fragments {
			if strings.Contains(n, f) {
				return true
			}
		}
	}
	return false
}
