package audit

import (
	"sort"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// A hole finding is placed at the statement that opened the hole (docs/rules.md,
// "Messages and positions"): where the index was created, or, when a later migration
// opened it, that later statement. Reporting only what a change adds
// (--new-from-rev) and annotations on a pull request depend on it: a
// migration that drops the index covering an old hole must be where the
// finding lands.

// opening is a statement after an index was created that opened its hole
// or renamed what the finding names; What reads after "where".
type opening struct {
	Pos  catalog.Pos
	What string
}

// openings are the statements after ix was created that opened the hole h
// or renamed what the finding names: a hole part that lost NOT NULL, a
// dropped unique index that covered a hole part, a dropped CHECK that kept
// one from being NULL, and renames of the index, the table or a hole
// column. They come in the order replay applied them; a live catalog has
// no history and none.
func (p *Pass) openings(h *hole) []opening {
	t, ix := h.Table, h.Index
	if ix.Pos.IsZero() || len(p.History.Changes) == 0 {
		return nil
	}
	hist := p.history()
	after := func(pos catalog.Pos) bool { return !pos.IsZero() && hist.Before(ix.Pos, pos) }
	var out []opening
	holeColumns := map[string]bool{}
	for _, part := range h.Parts {
		if part.Column == "" {
			continue
		}
		holeColumns[part.Column] = true
		if col := t.Column(part.Column); col != nil && after(col.NullableSince) {
			out = append(out, opening{col.NullableSince, part.Column + " lost NOT NULL"})
		}
	}
	if after(ix.RenamedAt) {
		out = append(out, opening{ix.RenamedAt, "the index was renamed to " + ix.Name})
	}
	for _, ch := range p.changesOf(t) {
		if !after(ch.Pos) {
			continue
		}
		switch ch.Kind {
		case catalog.ChangeDropIndex, catalog.ChangeDropConstraint:
			if ch.Index != nil && ch.Index.Unique && coveredWith(t, ix, h.Parts, ch.Index) {
				out = append(out, opening{ch.Pos, "the unique index " + ch.Index.Name + ", which covered the rows where " +
					prose.List(prose.Parts(h.Parts), "or") + " is NULL, was dropped"})
			}
			if ch.Check != nil && ch.Check.Validated && provedBy(t, ix, h.Parts, ch.Check) {
				out = append(out, opening{ch.Pos, "CHECK " + ch.Check.Name + ", which kept " +
					prose.List(prose.Parts(h.Parts), "and") + " from being NULL, was dropped"})
			}
		case catalog.ChangeRenameColumn:
			if holeColumns[ch.Object] {
				out = append(out, opening{ch.Pos, "the column " + ch.OldName + " was renamed to " + ch.Object})
			}
		case catalog.ChangeRenameTable:
			out = append(out, opening{ch.Pos, "the table " + ch.OldName + " was renamed to " + t.Name})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return hist.Before(out[i].Pos, out[j].Pos) })
	return out
}

// coveredWith reports whether dropped, were it still there, would cover
// one of the hole's parts: then dropping it opened the hole.
func coveredWith(t *catalog.Table, ix *catalog.Index, parts []catalog.IndexPart, dropped *catalog.Index) bool {
	with := *t
	with.Indexes = append(append([]*catalog.Index(nil), t.Indexes...), dropped)
	for _, p := range parts {
		if nullsafe.Covered(&with, ix, p) {
			return true
		}
	}
	return false
}

// provedBy reports whether the CHECK ck, were it still there, would prove
// one of the hole's parts never NULL.
func provedBy(t *catalog.Table, ix *catalog.Index, parts []catalog.IndexPart, ck *catalog.Check) bool {
	with := *t
	with.Checks = append(append([]*catalog.Check(nil), t.Checks...), ck)
	for _, p := range parts {
		if nullsafe.NullSafe(&with, ix, p, nil).Safe {
			return true
		}
	}
	return false
}

// placeAtOpening moves f to the last statement that opened the hole, when
// a later statement did. The index's creation and the earlier openings
// become related locations; a note says why the finding is placed there,
// since the primary position has no message of its own.
func placeAtOpening(f *Finding, ix *catalog.Index, opened []opening) {
	if len(opened) == 0 {
		return
	}
	last := opened[len(opened)-1]
	related := []Related{{Pos: ix.Pos, Message: "unique index " + ix.Name + " created here"}}
	for _, o := range opened[:len(opened)-1] {
		related = append(related, Related{Pos: o.Pos, Message: o.What + " here"})
	}
	f.Pos = last.Pos
	f.Related = append(related, f.Related...)
	f.Notes = append([]string{"reported here, where " + last.What}, f.Notes...)
}

func openedAt(opened []opening, pos catalog.Pos) bool {
	for _, o := range opened {
		if o.Pos == pos {
			return true
		}
	}
	return false
}
