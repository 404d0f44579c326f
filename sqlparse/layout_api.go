package sqlparse

import (
	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// Discovery, layouts and up parts live in package layout, which is pure
// Go; these names keep callers of sqlparse unchanged.
type (
	Layout          = layout.Layout
	File            = layout.File
	Tree            = layout.Tree
	SkippedFile     = layout.SkippedFile
	DiscoverOptions = layout.DiscoverOptions
)

// The layouts idemcheck knows; see package layout.
const (
	LayoutGolangMigrate = layout.LayoutGolangMigrate
	LayoutGoose         = layout.LayoutGoose
	LayoutDbmate        = layout.LayoutDbmate
	LayoutSQLMigrate    = layout.LayoutSQLMigrate
	LayoutTern          = layout.LayoutTern
	LayoutFlyway        = layout.LayoutFlyway
	LayoutLiquibase     = layout.LayoutLiquibase
	LayoutDirs          = layout.LayoutDirs
	LayoutPrisma        = layout.LayoutPrisma
	LayoutSqitch        = layout.LayoutSqitch
	LayoutTemporal      = layout.LayoutTemporal
	LayoutMultiDialect  = layout.LayoutMultiDialect
	LayoutDump          = layout.LayoutDump
	LayoutPlain         = layout.LayoutPlain
)

// Discover finds the migration trees named by paths; see layout.Discover.
func Discover(paths []string, opts DiscoverOptions) ([]Tree, []Diagnostic) {
	return layout.Discover(paths, opts)
}

// ReadUp reads a file and keeps only its up part; see layout.ReadUp.
func ReadUp(f File) (scan.Input, error) { return layout.ReadUp(f) }

// OutsideTree reports a link under root that leads out of it; see
// layout.OutsideTree.
func OutsideTree(root, path string) (string, bool) { return layout.OutsideTree(root, path) }

// NotFollowed is the note for such a link; see layout.NotFollowed.
func NotFollowed(path, target string) string { return layout.NotFollowed(path, target) }

// ParseLayout checks a --layout value; see layout.ParseLayout.
func ParseLayout(s string) (Layout, error) { return layout.ParseLayout(s) }

// Layouts returns every layout name --layout accepts.
func Layouts() []Layout { return layout.Layouts() }

// Candidate is a schema-like file under a path; see layout.Census.
type Candidate = layout.Candidate

// Census lists the schema-like files under a path; see layout.Census.
func Census(p string) []Candidate { return layout.Census(p) }

// HasDDL reports whether a SQL file changes a schema; see layout.HasDDL.
func HasDDL(p string) bool { return layout.HasDDL(p) }

// Detect is the layout of one directory; see layout.Detect.
func Detect(dir string) Layout { return layout.Detect(dir) }

// TreeDepth is how far below a given directory a tree is looked for.
const TreeDepth = layout.TreeDepth

// FixtureDir reports a test-fixture, example or template folder name; see
// layout.FixtureDir.
func FixtureDir(name string) bool { return layout.FixtureDir(name) }
