package cmd

import (
	"path/filepath"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/frameworks"
	"github.com/idemcheck/idemcheck/report"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// schemaFiles is lint's hook for the framework schema files (Rails'
// db/schema.rb, Prisma schemas) among its paths: see package frameworks.
type schemaFiles struct {
	found   []frameworks.Found
	sources []*frameworks.Source
	// replayed are the sources lint checks (no SQL beside them); the others
	// were only compared with the SQL.
	replayed []*frameworks.Source
	inputs   []report.Input
	diags    []sqlparse.Diagnostic
	// status is what became of each schema file, for the input account;
	// groups holds, for each, the files of the schema it was read with.
	status map[string]placed
	groups map[string][]string
}

// findSchemaFiles takes the schema files out of lint's paths, leaving what
// the SQL loader reads.
func findSchemaFiles(paths []string) ([]string, *schemaFiles) {
	sqlPaths, found, diags := frameworks.Find(paths)
	return sqlPaths, &schemaFiles{found: found, diags: diags}
}

// load reads every schema file after the SQL: one with SQL migrations beside
// it is compared with them (the SQL wins, differences are notes, and its
// migrations get the framework's fixes); any other is replayed into cat
// through apply like a migration.
func (s *schemaFiles) load(cat *catalog.Catalog, trees []sqlparse.Tree, apply func(sqlparse.Statement) []sqlparse.Diagnostic) {
	s.status = map[string]placed{}
	s.groups = map[string][]string{}
	for _, f := range s.found {
		for _, p := range f.Paths {
			s.groups[filepath.Clean(p)] = f.Paths
		}
		src, err := frameworks.Read(f.Paths...)
		if err != nil {
			s.diags = append(s.diags, sqlparse.Diagnostic{Level: sqlparse.Error, Message: err.Error()})
			continue
		}
		s.sources = append(s.sources, src)
		var beside []sqlparse.Tree
		if !f.Explicit {
			for _, t := range trees {
				if f.Beside(t.Root) {
					beside = append(beside, t)
				}
			}
		}
		if len(beside) > 0 {
			for _, t := range beside {
				for _, file := range t.Files {
					src.Covers = append(src.Covers, file.Path)
				}
			}
			s.diags = append(s.diags, src.Diagnostics...)
			s.diags = append(s.diags, frameworks.CrossCheck(cat, src)...)
			for _, p := range f.Paths {
				s.status[p] = placed{skip: "compared with the SQL migrations beside it (" + beside[0].Root + "), which are the tree replayed"}
			}
			continue
		}
		for i, p := range f.Paths {
			s.status[p] = placed{tree: src.Path, order: i + 1}
		}
		s.replayed = append(s.replayed, src)
		s.diags = append(s.diags, src.Replay(apply)...)
		s.inputs = append(s.inputs, report.Input{Path: src.Path, Layout: string(src.Kind), Files: f.Paths, Statements: len(src.Statements)})
	}
}

// directives are the ignore directives of the schema files lint checked.
func (s *schemaFiles) directives() []audit.Directive {
	var out []audit.Directive
	for _, src := range s.replayed {
		out = append(out, src.Directives()...)
	}
	return out
}

// files counts the schema files read.
func (s *schemaFiles) files() int {
	n := 0
	for _, f := range s.found {
		n += len(f.Paths)
	}
	return n
}

// statements counts the statements of the schema files lint checked.
func (s *schemaFiles) statements() int {
	n := 0
	for _, src := range s.replayed {
		n += len(src.Statements)
	}
	return n
}

// addFixes puts each framework's own fixes before the SQL ones.
func (s *schemaFiles) addFixes(findings []audit.Finding, cat *catalog.Catalog, pgVersion int) {
	frameworks.AddFixes(findings, cat, s.sources, pgVersion)
}
