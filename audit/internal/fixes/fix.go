// Package fixes writes the SQL that closes what the audit rules find: the
// fixes for a hole in a unique index (NULLS NOT DISTINCT, the partial
// split, NOT NULL, the index for the other arm of an exclusive arc), the
// statements they are made of, and names for the objects they add. It reads
// only the catalog and what audit hands it (a Hole); it does not decide
// whether something is wrong.
//
// It is not the fixsql package, which writes these fixes into a migration
// tree.
package fixes

import "strings"

// DefaultPGVersion is the major version fixes are written for when the run
// names none.
const DefaultPGVersion = 16

// Fix is one way to close what a finding found, as complete SQL.
type Fix struct {
	Title string
	SQL   string
	// Caveat says when the fix is wrong or what it costs.
	Caveat string
	// Precheck is a query that lists the rows that would make the fix fail
	// (rows that already collide); empty when none is needed.
	Precheck string
	// NoTransaction is set when SQL cannot run inside a transaction block
	// (CREATE INDEX CONCURRENTLY).
	NoTransaction bool
	// Lang is the language of SQL when a framework's fix is written in its
	// own words ("ruby" for a Rails migration, "prisma" for a Prisma schema
	// edit); "" is SQL. --fix-sql writes only SQL.
	Lang string

	// kind tells NotNullFirst which fix the data may move first.
	kind kind
}

// kind names the fixes NotNullFirst reorders.
type kind int

// notNull makes key parts NOT NULL; the zero kind is every other fix.
const notNull kind = 1

// NotNullFirst moves the NOT NULL fix of fixes to the front, its caveat led
// by why, and returns the fixes; they are returned unchanged when none
// makes a part NOT NULL.
func NotNullFirst(fixes []Fix, why string) []Fix {
	for i, fx := range fixes {
		if fx.kind != notNull {
			continue
		}
		fx.Caveat = strings.TrimSpace(why + " " + fx.Caveat)
		out := append([]Fix{fx}, fixes[:i]...)
		return append(out, fixes[i+1:]...)
	}
	return fixes
}

// HasNotNull reports whether one of fixes makes key parts NOT NULL (a
// soft-delete marker's fixes never do).
func HasNotNull(fixes []Fix) bool {
	for _, fx := range fixes {
		if fx.kind == notNull {
			return true
		}
	}
	return false
}
