package audit

import (
	"fmt"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
)

// NNDUnsupported flags NULLS NOT DISTINCT where the target server is older
// than PostgreSQL 15, which does not know the clause.
var NNDUnsupported = &Rule{
	ID:    "nnd-unsupported",
	Title: "nulls not distinct on a server older than postgresql 15",
	Doc: `NULLS NOT DISTINCT arrived in PostgreSQL 15. On an older server the CREATE INDEX
or UNIQUE constraint that uses it is a syntax error, so the migration fails, or,
when someone "fixes" it by deleting the clause, the index is created with the hole
the clause was there to close.

The target version is --pg-version for lint and the server's own version for
inspect. On older servers the same guarantee takes the partial split: the index
without the clause plus one partial unique index per NULL key part, over the other
parts, WHERE that part IS NULL.`,
	Bad: `-- --pg-version 14
CREATE UNIQUE INDEX events_dedupe ON events (organization_id, external_id)
    NULLS NOT DISTINCT;`,
	Good: `-- --pg-version 14
CREATE UNIQUE INDEX events_dedupe ON events (organization_id, external_id);
CREATE UNIQUE INDEX events_dedupe_external_id_null ON events (organization_id)
    WHERE external_id IS NULL;`,
	Severity: Error,
	Needs:    Either,
	Run:      runNNDUnsupported,
}

// nndMinVersion is the first PostgreSQL major version with NULLS NOT DISTINCT.
const nndMinVersion = 15

func runNNDUnsupported(p *Pass) {
	version := targetVersion(p)
	if version >= nndMinVersion {
		return
	}
	for _, t := range p.Catalog.Tables() {
		for _, ix := range t.UniqueIndexes() {
			if !ix.NullsNotDistinct || ix.ParentIndex != "" {
				continue
			}
			p.Report(Finding{
				Object: t.QualifiedName() + "." + ix.Name,
				Message: fmt.Sprintf("%s: NULLS NOT DISTINCT needs PostgreSQL 15 or later, but the target is "+
					"PostgreSQL %d: the statement fails there, and without the clause rows with a NULL key part are never duplicates",
					indexHeader(t, ix), version),
				Pos:   ix.Pos,
				Fixes: []Fix{fixes.WithoutNND(p.namer(t), t, ix)},
			})
		}
	}
}

// targetVersion is the major version the rules check against: the live
// server's when there is one, --pg-version otherwise.
func targetVersion(p *Pass) int {
	if v := p.Catalog.ServerVersion; v > 0 {
		return v / 10000
	}
	if p.Options.PGVersion > 0 {
		return p.Options.PGVersion
	}
	return fixes.DefaultPGVersion
}
