package frameworks

import (
	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// AddFixes puts the framework's own fixes before the SQL fixes of every
// nullable-key finding that a schema file produced, or that a migration of
// the SQL tree beside a schema file produced (Source.Covers). The SQL fixes
// stay, as the alternatives they are.
//
// Other rules keep their SQL fixes only. An optional-unique finding, "unique
// when present" on purpose, gets no fix that adds uniqueness.
func AddFixes(findings []audit.Finding, cat *catalog.Catalog, sources []*Source, pgVersion int) {
	byFile := map[string]*Source{}
	for _, s := range sources {
		for _, f := range s.Files {
			byFile[f] = s
		}
		for _, f := range s.Covers {
			byFile[f] = s
		}
	}
	for i := range findings {
		f := &findings[i]
		if f.Rule != "nullable-key" || len(f.Fixes) == 0 {
			continue
		}
		src := byFile[f.Pos.File]
		if src == nil {
			continue
		}
		t := tableOf(cat, f.Object)
		if t == nil {
			continue
		}
		var extra []audit.Fix
		switch {
		case src.rails != nil:
			extra = src.rails.Fixes(t, f.Columns, f.Fixes)
		case src.prisma != nil:
			extra = src.prisma.Fixes(t, f.Columns, f.Fixes)
		}
		if src.rails != nil {
			for j := range f.Fixes {
				if c := src.rails.SQLCaveat(f.Fixes[j].SQL); c != "" {
					f.Fixes[j].Caveat += " " + c
				}
			}
		}
		f.Fixes = append(extra, f.Fixes...)
	}
}

// tableOf finds the table of a finding's object, "schema.table.index".
func tableOf(cat *catalog.Catalog, object string) *catalog.Table {
	for _, t := range cat.Tables() {
		q := t.QualifiedName()
		if len(object) > len(q) && object[:len(q)] == q && object[len(q)] == '.' {
			return t
		}
	}
	return nil
}
