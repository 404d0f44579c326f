package layout

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Layout names a migration tool's way of laying out and ordering files
// (LAYOUTS.md). It decides which files are used, which part of each file is
// the "up" SQL, and the order in which they are replayed.
type Layout string

// The layouts idemcheck knows, in the order --layout lists them.
const (
	LayoutGolangMigrate Layout = "golang-migrate"
	LayoutGoose         Layout = "goose"
	LayoutDbmate        Layout = "dbmate"
	LayoutSQLMigrate    Layout = "sql-migrate"
	LayoutTern          Layout = "tern"
	LayoutFlyway        Layout = "flyway"
	LayoutLiquibase     Layout = "liquibase"
	LayoutDirs          Layout = "dirs" // diesel, sqlx, refinery: {version}_{name}/up.sql
	LayoutPrisma        Layout = "prisma"
	LayoutSqitch        Layout = "sqitch"
	LayoutTemporal      Layout = "temporal" // temporal-sql-tool: v{version}/manifest.json
	LayoutMultiDialect  Layout = "multi-dialect"
	LayoutDump          Layout = "dump"
	LayoutPlain         Layout = "plain"
)

var allLayouts = []Layout{
	LayoutGolangMigrate, LayoutGoose, LayoutDbmate, LayoutSQLMigrate, LayoutTern,
	LayoutFlyway, LayoutLiquibase, LayoutDirs, LayoutPrisma, LayoutSqitch,
	LayoutTemporal, LayoutMultiDialect, LayoutDump, LayoutPlain,
}

// Layouts returns every layout name --layout accepts.
func Layouts() []Layout { return append([]Layout(nil), allLayouts...) }

// ParseLayout checks a --layout value. The empty string means "detect".
func ParseLayout(s string) (Layout, error) {
	if s == "" {
		return "", nil
	}
	for _, l := range allLayouts {
		if strings.EqualFold(s, string(l)) {
			return l, nil
		}
	}
	names := make([]string, len(allLayouts))
	for i, l := range allLayouts {
		names[i] = string(l)
	}
	return "", fmt.Errorf("unknown layout %q: use one of %s", s, strings.Join(names, ", "))
}

// Markers in file content that name the tool which wrote the file.
const (
	gooseUpMarker      = "-- +goose up"
	sqlMigrateUpMarker = "-- +migrate up"
	dbmateUpMarker     = "-- migrate:up"
	ternMarker         = "---- create above / drop below ----"
	liquibaseHeader    = "--liquibase formatted sql"
	pgDumpHeader       = "-- PostgreSQL database dump"
)

// dumpMinSize is the size from which a lone schema file is taken for a dump
// rather than a hand-written script; both are read whole, so the line only
// decides what -v says.
const dumpMinSize = 64 << 10

var (
	flywayVersioned = regexp.MustCompile(`^[Vv]([0-9]+(?:[._][0-9]+)*)__(.*)\.sql$`)
	flywayRepeat    = regexp.MustCompile(`^R__(.*)\.sql$`)
	flywayUndo      = regexp.MustCompile(`^U([0-9]+(?:[._][0-9]+)*)__(.*)\.sql$`)
	dialectUp       = regexp.MustCompile(`\.(postgres|postgresql|pg|mysql|sqlite|sqlite3|cockroach|cockroachdb|mssql|sqlserver|clickhouse)\.(?:autocommit\.)?(?:up|down)\.sql$`)
)

// contentLayout guesses a layout from markers in a file's text, or "".
func contentLayout(data []byte) Layout {
	head := data
	if len(head) > 1<<20 {
		head = head[:1<<20]
	}
	lower := bytes.ToLower(head)
	firstLine, _, _ := bytes.Cut(lower, []byte("\n"))
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(firstLine), []byte(liquibaseHeader)):
		return LayoutLiquibase
	case hasMarkerLine(lower, gooseUpMarker):
		return LayoutGoose
	case hasMarkerLine(lower, sqlMigrateUpMarker):
		return LayoutSQLMigrate
	case hasMarkerLine(lower, dbmateUpMarker):
		return LayoutDbmate
	case bytes.Contains(lower, []byte(ternMarker)):
		return LayoutTern
	case bytes.Contains(head, []byte(pgDumpHeader)):
		return LayoutDump
	}
	return ""
}

// hasMarkerLine reports whether some line starts with marker (lower case).
func hasMarkerLine(lower []byte, marker string) bool {
	for line := range bytes.Lines(lower) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(marker)) {
			return true
		}
	}
	return false
}

// downKind says what kind of down migration a file name is ("a down
// migration", "an undo migration", ...), or "" when it is not one.
// idemcheck never replays them.
func downKind(name string) string {
	lower := strings.ToLower(name)
	if flywayUndo.MatchString(name) {
		return "an undo migration"
	}
	base := strings.TrimSuffix(lower, ".sql")
	for _, k := range []struct{ word, kind string }{
		{"down", "a down migration"}, {"undo", "an undo migration"},
		{"rollback", "a rollback script"}, {"revert", "a revert script"},
	} {
		w := k.word
		if base == w || strings.HasSuffix(base, "."+w) || strings.HasSuffix(base, "_"+w) ||
			strings.HasSuffix(base, "-"+w) || strings.Contains(base, "."+w+".") {
			return k.kind
		}
	}
	return ""
}

// fileLayout guesses the layout of one file given on its own, from its name
// and then its content.
func fileLayout(name string, data []byte) Layout {
	base := filepath.Base(name)
	switch {
	case flywayVersioned.MatchString(base) || flywayRepeat.MatchString(base):
		return LayoutFlyway
	case dialectUp.MatchString(strings.ToLower(base)):
		return LayoutMultiDialect
	case strings.HasSuffix(base, ".up.sql"):
		return LayoutGolangMigrate
	}
	if l := contentLayout(data); l != "" {
		return l
	}
	if len(data) >= dumpMinSize || base == "structure.sql" {
		return LayoutDump
	}
	return LayoutPlain
}
