package audit

import (
	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/catalog"
)

// Fix is one way to close what a finding found, as complete SQL. The fix
// builders live in audit/internal/fixes; rules call them with what they
// found.
type Fix = fixes.Fix

// holeFixes returns the fixes for a hole, most preferable first, written
// for the run's PostgreSQL version.
func holeFixes(p *Pass, h *hole) []Fix {
	return fixes.ForHole(h.forFixes(), p.namer(h.Table), p.Options.PGVersion)
}

// forFixes is h as the fix builders take it.
func (h *hole) forFixes() *fixes.Hole {
	out := &fixes.Hole{Table: h.Table, Index: h.Index, Parts: h.Parts, Optional: h.Optional, Link: h.link()}
	for _, r := range h.Readings {
		out.StandIns = append(out.StandIns, r.standIns)
		if r.twin != nil && r.part.Column != "" {
			out.Twins = append(out.Twins, [2]string{r.part.Column, otherArm(h.Index, r.twin).Column})
		}
		if r.what.kind == kindSoftDelete {
			out.Markers = append(out.Markers, r.part)
		}
	}
	return out
}

// link reports whether every key part of the hole's index is a reference
// (a link row, an owner key with its type column): a NULL end links
// nothing. A claim table's references are the claimed target and count. A
// reference to the table itself is not a link's end: its NULL marks the
// first row of a chain, a value.
func (h *hole) link() bool {
	claim := claimTable(h.Table)
	for _, p := range h.Index.Parts {
		if pr := kindOf(h.cat, h.Table, h.Index, p, claim); !pr.ref || pr.kind == kindActor {
			return false
		}
		if fk := h.Table.ForeignKeyOn(p.Column); p.Column != "" && fk != nil && refersTo(fk, h.Table) {
			return false
		}
	}
	return true
}

// namer names the objects a fix adds to t, avoiding every name t's schema
// holds and each name it has handed out.
func (p *Pass) namer(t *catalog.Table) *fixes.Namer {
	s := p.Catalog.Schema(t.Schema)
	if s == nil {
		return fixes.NewNamer(nil, t)
	}
	return fixes.NewNamer(s, t)
}
