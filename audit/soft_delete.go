package audit

import "github.com/idemcheck/idemcheck/catalog"

// A soft-delete column marks a row deleted by setting a time instead of
// removing the row: rows where it is NULL are the live ones, and uniqueness
// that holds among them is what the application needs. It is recognised by
// structure, never by its name alone: a nullable timestamp (or date) that
// an index predicate somewhere in the history tests with "IS NULL", the
// way a partial index over the live rows does (WHERE deleted_at IS NULL).

// softDelete reports whether the column identity id of table t is a
// soft-delete column. Its type and nullability are read in the catalog at
// the end of the tree; a column gone by then is not one.
func (h *keyHistory) softDelete(t *tableTrack, id string) bool {
	if !h.testedIsNull[t][id] {
		return false
	}
	col := h.columnAtEnd(t, id)
	return col != nil && !col.IsNotNull() && isTimestamp(h.cat, col)
}

// columnAtEnd is the column with identity id as the tree leaves it, or nil.
func (h *keyHistory) columnAtEnd(t *tableTrack, id string) *catalog.Column {
	name := t.nameOf(id)
	if name == "" {
		return nil
	}
	table := h.cat.ResolveTable(t.schema, t.name)
	if table == nil {
		return nil
	}
	return table.Column(name)
}
