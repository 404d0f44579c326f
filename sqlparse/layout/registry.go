package layout

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// Def is one migration layout: everything idemcheck knows of one migration
// tool's files, in one value in one file (goose.go, flyway.go, ...).
// Discovery, the up-part cutter, lint --fix-sql (package fixsql), the
// --layout values and the layout table of docs/layouts.md all read the registry, so
// adding a layout means adding its file, its line in registry, and its
// fixtures under testdata/layouts.
type Def struct {
	Name Layout
	// Tool is how lint's help names the tool ("Flyway"); "" for the
	// layouts that are no tool's (dump, plain).
	Tool string
	// Files, UpPart and Order are the layout's row of the README table.
	Files, UpPart, Order string

	// Detection. Marker reports content that names the tool (the head of
	// a file, whose letters may be in any case); the registry's order
	// breaks ties.
	// Signature reports a directory that only this tool lays out
	// (sqitch.plan, a Prisma lock file). FolderFile is the file a
	// {version}_{name}/ folder holds in this layout (diesel's up.sql,
	// Prisma's migration.sql).
	Marker     func(head []byte) bool
	Signature  func(dir string, sc dirScan) bool
	FolderFile string

	// List chooses and orders the files of one tree the way the tool
	// does, and says which files it leaves out and why.
	List func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic)
	// Up cuts the up part out of a file's text; nil keeps the whole text.
	Up func(f File, text string) scan.Input
	// DropsBOM is set when the tool drops a UTF-8 byte order mark at the
	// start of a file (psql, Flyway, Liquibase); otherwise it reaches
	// PostgreSQL, which rejects it, and a file that has one is an error.
	DropsBOM bool
	// Fix is how lint --fix-sql DIR writes migrations in this layout; nil
	// when it cannot name one.
	Fix *FixStyle
	// Bookkeeping are the tables the tool itself creates before the first
	// migration runs, each as the one CREATE TABLE it runs (the tools that
	// share the layout all listed). Replay makes one when a migration
	// refers to it and it does not exist yet, so that a migration that
	// reads or changes the tool's own table replays without a note.
	Bookkeeping []string
}

// treeDir is the directory a tree is listed from.
type treeDir struct {
	dir, display string
	sc           dirScan
}

// FixStyle is how lint --fix-sql DIR writes its migrations in a layout.
type FixStyle struct {
	// Files returns the files of one migration, with names relative to
	// the tree: the migration whose version is version, named title,
	// holding body; noTx says its statements cannot run in a transaction.
	Files func(version, title, body string, noTx bool) []FixFile
	// OnePerStatement gives every statement that cannot run in a
	// transaction a migration of its own (golang-migrate runs a file as
	// one multi-statement string).
	OnePerStatement bool
	// VersionWidth is how many digits a version has when the tree has no
	// numbered migration yet (000001, or Flyway's V1).
	VersionWidth int
	// Timestamps: a tree with no migration yet is versioned by timestamps
	// (dbmate's default).
	Timestamps bool
}

// FixFile is one file of a fix migration.
type FixFile struct{ Name, Content string }

// markedFix writes a migration as one file whose first line marks whether
// it runs in a transaction (goose, dbmate, sql-migrate).
func markedFix(ext, upTx, upNoTx, down string) *FixStyle {
	return &FixStyle{
		Files: func(version, title, body string, noTx bool) []FixFile {
			up := upTx
			if noTx {
				up = upNoTx
			}
			return []FixFile{{Name: version + "_" + title + ext, Content: up + body + down}}
		},
		VersionWidth: 6,
	}
}

// FixNoDown is the down part of every fix migration.
const FixNoDown = "-- idemcheck does not write a down migration for its fixes: undoing one reopens the hole.\n"

// registry is every layout, in the order --layout lists them.
var registry = []*Def{
	golangMigrate, goose, dbmate, sqlMigrate, tern,
	flyway, liquibase, dirs, prisma, sqitch,
	temporal, schemaDeltas, multiDialect, dump, plain,
}

// Defs returns every layout, in the order --layout lists them.
func Defs() []*Def { return append([]*Def(nil), registry...) }

// Lookup returns the layout named name, or nil.
func Lookup(name Layout) *Def {
	for _, d := range registry {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Layouts returns every layout name --layout accepts.
func Layouts() []Layout {
	out := make([]Layout, len(registry))
	for i, d := range registry {
		out[i] = d.Name
	}
	return out
}

// ParseLayout checks a --layout value. The empty string means "detect".
func ParseLayout(s string) (Layout, error) {
	if s == "" {
		return "", nil
	}
	for _, d := range registry {
		if strings.EqualFold(s, string(d.Name)) {
			return d.Name, nil
		}
	}
	names := make([]string, len(registry))
	for i, d := range registry {
		names[i] = string(d.Name)
	}
	return "", fmt.Errorf("unknown layout %q: use one of %s", s, strings.Join(names, ", "))
}

// Table is the table of layouts of docs/layouts.md, in Markdown.
func Table() string {
	var b strings.Builder
	b.WriteString("| layout | files | up part | order |\n|---|---|---|---|\n")
	for _, d := range registry {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Name, d.Files, d.UpPart, d.Order)
	}
	return b.String()
}
