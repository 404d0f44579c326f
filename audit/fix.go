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
	out := &fixes.Hole{Table: h.Table, Index: h.Index, Parts: h.Parts, Optional: h.Optional, OptionalKeys: h.optionalKeys}
	for _, r := range h.Readings {
		out.StandIns = append(out.StandIns, r.standIns)
	}
	return out
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
