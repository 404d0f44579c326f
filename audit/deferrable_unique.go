package audit

import (
	"fmt"
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
bulk reorderings (swapping positions), not for claims.`,
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
			if !ix.Deferrable || ix.ParentIndex != "" {
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
