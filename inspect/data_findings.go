package inspect

import (
	"context"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// CountFindings runs the data checks (CheckData) for the findings about a
// unique index of snap that name nullable key parts, and returns the counts
// in the audit's terms: one entry per finding, nil for a finding that was
// not checked. A checked finding gets counts even when none of its parts
// could be counted. locked says, once per table, why the counts of a table
// another session held locked were skipped. The error is CheckData's: the
// counts stopped, and those made before are returned.
func (s *Session) CountFindings(ctx context.Context, snap *Snapshot, findings []audit.Finding, progress Progress) (counts []*audit.DataCounts, locked []string, err error) {
	indexes := indexesByObject(snap.Catalog)
	var checks []DataCheck
	var owners []int
	for i, f := range findings {
		target, ok := indexes[f.Object]
		if !ok || len(f.Columns) == 0 {
			continue
		}
		checks = append(checks, DataCheck{Table: target.table, Index: target.index, Parts: f.Columns})
		owners = append(owners, i)
	}
	out := make([]*audit.DataCounts, len(findings))
	checked, err := s.CheckData(ctx, snap, checks, progress)
	for k, parts := range checked.Parts {
		out[owners[k]] = dataCounts(parts)
	}
	return out, checked.Locked, err
}

type indexTarget struct {
	table *catalog.Table
	index *catalog.Index
}

// indexesByObject maps "schema.table.index", the Object of a live finding,
// to the table and index.
func indexesByObject(cat *catalog.Catalog) map[string]indexTarget {
	out := map[string]indexTarget{}
	for _, t := range cat.Tables() {
		for _, ix := range t.Indexes {
			out[t.QualifiedName()+"."+ix.Name] = indexTarget{t, ix}
		}
	}
	return out
}

func dataCounts(parts []PartData) *audit.DataCounts {
	d := &audit.DataCounts{}
	for _, p := range parts {
		d.Parts = append(d.Parts, audit.PartCounts{
			Part:                   p.Part,
			NullRows:               p.NullRows.N,
			NullRowsSkipped:        p.NullRows.Skipped,
			CollidingGroups:        p.CollidingGroups.N,
			CollidingGroupsSkipped: p.CollidingGroups.Skipped,
			Rows:                   p.Rows.N,
			RowsSkipped:            p.Rows.Skipped,
		})
	}
	return d
}
