package layout

import "bytes"

// LayoutDump is a schema dump: pg_dump --schema-only, Rails structure.sql.
const LayoutDump Layout = "dump"

// pgDumpHeader opens every pg_dump output.
const pgDumpHeader = "-- PostgreSQL database dump"

// dumpMinSize is the size from which a lone schema file is taken for a dump
// rather than a hand-written script; both are read whole, so the line only
// decides what -v says.
const dumpMinSize = 64 << 10

var dump = &Def{
	Bookkeeping: []string{railsMigrations, railsMetadata},
	Name:        LayoutDump,
	Files:       "`pg_dump --schema-only`, Rails `structure.sql`",
	UpPart:      "all",
	Order:       "file order",
	Marker:      func(head []byte) bool { return bytes.Contains(head, []byte(pgDumpHeader)) },
	List:        listWhole(LayoutDump),

	// psql drops a leading UTF-8 byte order mark.
	DropsBOM: true,
}
