package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/catalog"
)

// DeferrableUnique flags DEFERRABLE unique and primary key constraints:
// the duplicate check moves to the end of the statement or to commit, and
// INSERT ... ON CONFLICT refuses them as arbiters.
var DeferrableUnique = &Rule{
	ID:    "deferrable-unique",
	Title: "a unique constraint is deferrable",
	Doc: `A DEFERRABLE unique or primary key constraint checks for duplicates at the end
of the statement, or at commit when it is INITIALLY DEFERRED or a transaction runs
SET CONSTRAINTS ... DEFERRED. Two requests racing on the same key both insert and
learn about the conflict only when one of them commits, after it has already done
the work the key was meant to guard. INSERT ... ON CONFLICT cannot use a deferrable
constraint as its arbiter at all (PostgreSQL raises "ON CONFLICT does not support
deferrable unique constraints/exclusion constraints as arbiters"), so "the insert
is the lock" no longer holds.

Keep idempotency and dedupe keys NOT DEFERRABLE. Deferrable uniqueness is for
bulk reorderings (swapping positions), not for claims, and an ordering
constraint is not reported: a key whose only part that is not a reference,
scope or kind is a number that places the row among its siblings (a
position, rank or sort order: a numeric column whose name's last word is one
of the words below), outside a claim or dedupe table. Such a constraint is
deferred so that one transaction can move rows past each other; no request
claims anything through it.

` + wordListDoc(wordList{"an ordering part (the column's last word, numeric type)", orderingWords}),
	Bad: `CREATE TABLE payment_claims (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    CONSTRAINT payment_claims_key UNIQUE (account_id, idempotency_key)
        DEFERRABLE INITIALLY DEFERRED
);`,
	Good: `CREATE TABLE payment_claims (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    CONSTRAINT payment_claims_key UNIQUE (account_id, idempotency_key)
);`,
	Severity: Warning,
	Needs:    Either,
	Run:      runDeferrableUnique,
}

func runDeferrableUnique(p *Pass) {
	for _, t := range p.Catalog.Tables() {
		for _, ix := range t.UniqueIndexes() {
			// A partition's copy follows its parent's constraint: report once.
			if !ix.Deferrable || ix.ParentIndex != "" || orderingConstraint(p.Catalog, t, ix) {
				continue
			}
			p.Report(Finding{
				Object:  t.QualifiedName() + "." + ix.Name,
				Message: deferrableMessage(t, ix),
				Pos:     ix.Pos,
				Fixes:   []Fix{fixes.NotDeferrable(p.namer(t), t, ix)},
			})
		}
	}
}

func deferrableMessage(t *catalog.Table, ix *catalog.Index) string {
	kind, when := "UNIQUE", "at the end of each statement, or at commit once a transaction defers it"
	if ix.Primary {
		kind = "PRIMARY KEY"
	}
	if ix.InitiallyDeferred {
		when = "only at commit"
	}
	name := ix.Constraint
	if name == "" {
		name = ix.Name
	}
	return fmt.Sprintf("%s: the %s constraint %s is DEFERRABLE%s, so a duplicate %s is refused %s, after both "+
		"requests have done their work, and INSERT ... ON CONFLICT cannot use it as an arbiter",
		indexHeader(t, ix), kind, catalog.QuoteIdent(name), initiallyWords(ix), keyWords(ix), when)
}

func initiallyWords(ix *catalog.Index) string {
	if ix.InitiallyDeferred {
		return " INITIALLY DEFERRED"
	}
	return ""
}

// keyWords is "(a, b)" for messages about the whole key.
func keyWords(ix *catalog.Index) string {
	return "(" + strings.Join(ix.PartNames(), ", ") + ")"
}

// orderingConstraint reports whether ix keeps the order of rows among their
// siblings: outside a claim table, every key part but one only scopes the
// row (a reference, a scope, a kind), and that one is a numeric column named
// as a position (position, rank, sort_order). Such a constraint is deferred
// so that a transaction can swap or shift positions; it gates no request.
func orderingConstraint(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index) bool {
	if claimTable(t) {
		return false
	}
	claim := false
	ordering := 0
	for _, p := range ix.Parts {
		if kindOf(cat, t, ix, p, claim).scopeOnly() {
			continue
		}
		col := t.Column(p.Column)
		words := nameWords(p.Column)
		if p.Column == "" || col == nil || !numericColumn(cat, col) || len(words) == 0 ||
			!slices.Contains(orderingWords, words[len(words)-1]) {
			return false
		}
		ordering++
	}
	return ordering == 1
}

// numericColumn reports whether the column holds a number.
func numericColumn(cat *catalog.Catalog, col *catalog.Column) bool {
	typ, array := baseType(cat, col)
	return !array && slices.Contains(numericTypes, typ)
}
