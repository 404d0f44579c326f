package audit

import (
	"fmt"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// NotNullDropped flags the migration that made a key part of a multi-part
// unique index nullable: the hole did not exist until that statement.
var NotNullDropped = &Rule{
	ID:    "not-null-dropped",
	Title: "a migration drops not null from a key part of a unique index",
	Doc: `A unique index over (a, b) has no hole while both columns are NOT NULL. A later
ALTER TABLE ... ALTER COLUMN b DROP NOT NULL, or dropping b and adding it back
without NOT NULL, opens one: from then on two rows with the same a and no b are
both accepted. The index itself did not change, so a review of the index sees
nothing wrong, and the migration that did it often is years younger than the index.

The finding points at the statement that made the column nullable and relates the
index. Keep the column NOT NULL, or, when NULL is now a real value, close the hole
for it: NULLS NOT DISTINCT (PostgreSQL 15+) or a partial unique index WHERE b IS NULL.`,
	Bad: `CREATE TABLE deliveries (
    message_id bigint NOT NULL,
    recipient text NOT NULL,
    UNIQUE (message_id, recipient)
);
-- years later
ALTER TABLE deliveries ALTER COLUMN recipient DROP NOT NULL;`,
	Good: `CREATE TABLE deliveries (
    message_id bigint NOT NULL,
    recipient text NOT NULL,
    UNIQUE (message_id, recipient)
);
-- years later: broadcast deliveries have no recipient, once per message
ALTER TABLE deliveries ALTER COLUMN recipient DROP NOT NULL;
CREATE UNIQUE INDEX CONCURRENTLY deliveries_broadcast_once ON deliveries (message_id)
    WHERE recipient IS NULL;`,
	Severity: Error,
	Needs:    Migrations,
	Run:      runNotNullDropped,
}

func runNotNullDropped(p *Pass) {
	hist := p.history()
	checkedIndexes(p.Catalog, func(t *catalog.Table, ix *catalog.Index) {
		if len(ix.Parts) < 2 {
			return
		}
		h := p.tableHoleOf(t, ix)
		if h == nil {
			return
		}
		for _, part := range h.Parts {
			col := t.Column(part.Column)
			if col == nil || col.NullableSince.IsZero() {
				continue
			}
			recreated := changeAt(p.History.Changes, col.NullableSince, catalog.ChangeAddColumn) != nil
			if !hist.Before(ix.Pos, col.NullableSince) && !(recreated && keyedBefore(p.History.Changes, hist, t, col)) {
				// The column was nullable before the index existed:
				// nullable-key reports that hole; no migration opened it.
				continue
			}
			if recreated && !hist.Before(ix.Pos, col.NullableSince) && droppedEarlier(p.History.Changes, t, col) &&
				readsOptional(p, t, ix, part) {
				// A new column under a new index that reads "unique when
				// present" (optional-unique): a key dropped with its column
				// and added back in a later migration as an optional one,
				// not a rebuild that forgot its NOT NULL.
				continue
			}
			one := &hole{Table: t, Index: ix, Parts: []catalog.IndexPart{part}}
			f := Finding{
				Object:  t.QualifiedName() + "." + ix.Name,
				Columns: []string{col.Name},
				Message: notNullDroppedMessage(one, recreated),
				Pos:     col.NullableSince,
				Related: []Related{{Pos: ix.Pos, Message: "unique index " + ix.Name + " created here"}},
				Fixes:   holeFixes(p, one),
				Escape:  &Escape{Table: t, Index: ix, Parts: one.Parts},
			}
			if !ix.RenamedAt.IsZero() {
				f.Related = append(f.Related, Related{Pos: ix.RenamedAt, Message: "index renamed to " + ix.Name + " here"})
			}
			p.Report(f)
		}
	})
}

// droppedEarlier reports whether the column col, re-created at
// col.NullableSince, was dropped in an earlier migration than the one that
// adds it back.
func droppedEarlier(changes []catalog.Change, t *catalog.Table, col *catalog.Column) bool {
	added := changeAt(changes, col.NullableSince, catalog.ChangeAddColumn)
	for _, ch := range changes {
		if ch.Kind == catalog.ChangeDropColumn && ch.Table == t.Name && ch.Schema == t.Schema && ch.Object == col.Name {
			if added != nil && ch.File != added.File {
				return true
			}
		}
	}
	return false
}

// readsOptional reports whether the part of ix reads "unique when present"
// (docs/rules.md): optional-unique reports it, nullable-key does not.
func readsOptional(p *Pass, t *catalog.Table, ix *catalog.Index, part catalog.IndexPart) bool {
	h := p.holeOf(t, ix)
	return h != nil && !nullsafe.PartIn(part, h.narrow(true).partsOrNil())
}

// keyedBefore reports whether, before col was re-created, a unique index of
// t had a column of that name as a key part: DROP COLUMN took that index
// with it, and the one there now was re-created over a nullable column.
func keyedBefore(changes []catalog.Change, hist nullsafe.History, t *catalog.Table, col *catalog.Column) bool {
	for _, ch := range changes {
		if !isIndexCreation(ch) || ch.Table != t.Name || ch.Schema != t.Schema {
			continue
		}
		if len(ch.Index.Parts) > 1 && nullsafe.PartIn(catalog.IndexPart{Column: col.Name}, ch.Index.Parts) &&
			hist.Before(ch.Pos, col.NullableSince) {
			return true
		}
	}
	return false
}

func notNullDroppedMessage(h *hole, recreated bool) string {
	col := h.Parts[0].Column
	how := "ALTER COLUMN " + col + " DROP NOT NULL"
	if recreated {
		how = col + " is re-created without NOT NULL, which"
	}
	return fmt.Sprintf("%s opens a hole in %s that NOT NULL kept closed: %s", how, indexHeader(h.Table, h.Index),
		escapeWords(h))
}

// escapeWords is the end of a hole message: "two deliveries with the same
// message_id and no recipient are both accepted".
func escapeWords(h *hole) string {
	var same []string
	for _, p := range h.Index.Parts {
		if !nullsafe.PartIn(p, h.Parts) {
			same = append(same, prose.Part(p))
		}
	}
	s := "two " + rowNoun(h.Table) + " with "
	if len(same) > 0 {
		s += "the same " + prose.List(same, "and") + " and "
	}
	return s + absentWords(h.Parts[0]) + " are both accepted"
}
