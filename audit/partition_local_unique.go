package audit

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// PartitionLocalUnique flags unique indexes created on partitions one by one
// while the partitioned parent has none over the same key: each partition is
// unique on its own, the table as a whole is not.
var PartitionLocalUnique = &Rule{
	ID:    "partition-local-unique",
	Title: "a unique index on a partition with none on the partitioned parent",
	Doc: `A unique index on a partition only sees that partition's rows. When the
partitioned parent has no unique index over the same key, the same key can be
stored once in every partition: a retried request that lands in another partition
(a new month, another tenant range) is accepted again.

Create the unique index on the parent instead; PostgreSQL then builds or adopts
one on every partition, present and future. The parent's unique index must include
every partition key column. When the key cannot include them, uniqueness across
partitions needs a separate, unpartitioned claim table keyed on it.`,
	Bad: `CREATE TABLE events (
    event_id text NOT NULL,
    created_on date NOT NULL
) PARTITION BY RANGE (created_on);
CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX events_2026_event_id ON events_2026 (event_id, created_on);`,
	Good: `CREATE TABLE events (
    event_id text NOT NULL,
    created_on date NOT NULL
) PARTITION BY RANGE (created_on);
CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX events_event_id ON events (event_id, created_on);`,
	Severity: Warning,
	Needs:    Either,
	Run:      runPartitionLocalUnique,
}

func runPartitionLocalUnique(p *Pass) {
	for _, t := range p.Catalog.Tables() {
		parent := partitionParent(p.Catalog, t)
		if parent == nil {
			continue
		}
		for _, ix := range t.UniqueIndexes() {
			if ix.ParentIndex != "" || parentEnforces(parent, ix) {
				continue
			}
			p.Report(Finding{
				Object:  t.QualifiedName() + "." + ix.Name,
				Columns: ix.PartNames(),
				Message: fmt.Sprintf("%s: unique only within the partition %s; the partitioned table %s has no unique index over %s, "+
					"so the same key is accepted once in every partition",
					indexHeader(t, ix), t.DisplayName(), parent.DisplayName(), keyWords(ix)),
				Pos:   ix.Pos,
				Fixes: []Fix{fixes.ParentIndex(p.namer(parent), parent, ix)},
			})
		}
	}
}

// partitionParent returns the partitioned table t is a partition of, or nil.
func partitionParent(cat *catalog.Catalog, t *catalog.Table) *catalog.Table {
	if t.PartitionOf == "" {
		return nil
	}
	schema, name, ok := strings.Cut(t.PartitionOf, ".")
	if !ok {
		return nil
	}
	return cat.ResolveTable(schema, name)
}

// parentEnforces reports whether parent has a unique index whose key parts
// are all among ix's (fewer parts are stricter) and whose predicate, when it
// has one, is ix's own.
func parentEnforces(parent *catalog.Table, ix *catalog.Index) bool {
	for _, v := range parent.UniqueIndexes() {
		if v.Predicate != nil && (ix.Predicate == nil || v.Predicate.String() != ix.Predicate.String()) {
			continue
		}
		if partsSubset(v.Parts, ix.Parts) {
			return true
		}
	}
	return false
}

// partsSubset reports whether every part of sub is a part of of.
func partsSubset(sub, of []catalog.IndexPart) bool {
	for _, p := range sub {
		if !nullsafe.PartIn(p, of) {
			return false
		}
	}
	return len(sub) > 0
}
