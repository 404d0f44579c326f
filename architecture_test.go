package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The package table of docs/architecture.md makes three claims per row that
// go list can check: which packages of this module the package imports,
// whether it needs cgo (it depends on the parser), and, in the text under
// the table, which packages import pg_query_go. TestArchitectureTable holds
// the page to what the code does.

const (
	modulePath  = "github.com/idemcheck/idemcheck"
	parserPath  = "github.com/pganalyze/pg_query_go/v5"
	archPage    = "docs/architecture.md"
	importerSay = "pg_query_go is imported by "
)

// listedPackage is what go list -json says of one package.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func goListPackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list -json ./...: %v", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modulePath), "/")
		pkgs[rel] = p
	}
	return pkgs
}

// usesParser says whether an import path is the parser or one of its
// packages.
func usesParser(path string) bool {
	return path == parserPath || strings.HasPrefix(path, parserPath+"/")
}

func TestArchitectureTable(t *testing.T) {
	pkgs := goListPackages(t)
	page := readFile(t, archPage)

	// Who imports pg_query_go.
	var importers []string
	for rel, p := range pkgs {
		for _, imp := range p.Imports {
			if usesParser(imp) {
				importers = append(importers, "`"+rel+"`")
				break
			}
		}
	}
	sort.Strings(importers)
	_, rest, ok := strings.Cut(page, importerSay)
	if !ok {
		t.Fatalf("%s has no sentence %q naming the packages that import the parser", archPage, importerSay+"...")
	}
	said, _, _ := strings.Cut(rest, ":")
	if want := strings.Join(importers, " and "); said != want {
		t.Errorf("%s says %q%s; go list says the importers are %s", archPage, importerSay, said, want)
	}

	checked := 0
	for _, row := range architectureRows(t, page) {
		for _, name := range row.packages {
			p, ok := pkgs[name]
			if !ok {
				t.Errorf("%s: the table names package %q, which go list does not know", archPage, name)
				continue
			}
			cgo := false
			for _, d := range append(append([]string{}, p.Deps...), p.Imports...) {
				cgo = cgo || usesParser(d)
			}
			switch row.cgo {
			case "yes", "no":
				if (row.cgo == "yes") != cgo {
					t.Errorf("%s: %s says cgo %s, but it %s on pg_query_go", archPage, name, row.cgo, map[bool]string{true: "depends", false: "does not depend"}[cgo])
				}
			}
			if row.imports == nil {
				continue
			}
			checked++
			var actual []string
			for _, imp := range p.Imports {
				if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
					actual = append(actual, rel)
				}
			}
			sort.Strings(actual)
			if got, want := strings.Join(actual, ", "), strings.Join(row.imports, ", "); got != want {
				t.Errorf("%s: %s imports (from this module) %q, the table says %q", archPage, name, got, want)
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked the imports of %d packages; the table or this test's reading of it changed", checked)
	}
}

// archRow is one row of the package table: the packages it names (by path
// relative to the module; "." for the root), the module packages it says
// they import (nil when the cell is a phrase, not a list), and its cgo cell.
type archRow struct {
	packages []string
	imports  []string
	cgo      string
}

var backticked = regexp.MustCompile("`([^`]+)`")

func architectureRows(t *testing.T, page string) []archRow {
	t.Helper()
	_, table, ok := strings.Cut(page, "| package | owns | imports (from this module) | cgo |")
	if !ok {
		t.Fatalf("%s has no package table", archPage)
	}
	var rows []archRow
	for _, line := range strings.Split(table, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 4 {
			t.Fatalf("%s: a row of the package table without its four cells: %s", archPage, line)
		}
		var row archRow
		row.cgo = strings.TrimSpace(cells[len(cells)-1])
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			name := m[1]
			switch {
			case name == "main.go":
				name = ""
			case strings.Contains(name, "..."):
				continue // a pattern: its packages are not listed one by one
			}
			row.packages = append(row.packages, name)
		}
		row.imports = importList(strings.TrimSpace(cells[len(cells)-2]))
		rows = append(rows, row)
	}
	return rows
}

// importList reads an imports cell: "none", or package names of this
// module (a path, or its last elements when they are unique, such as scan
// for sqlparse/scan) and of other modules (pgx), each
// possibly followed by a remark in parentheses. A cell that is anything
// else ("everything below") is a phrase, and nil.
func importList(cell string) []string {
	if cell == "none" {
		return []string{}
	}
	out := []string{}
	for _, item := range strings.Split(cell, ", ") {
		item, _, _ = strings.Cut(item, " (")
		item = strings.TrimSpace(item)
		if path, ok := moduleNames[item]; ok {
			if path != "" {
				out = append(out, path)
			}
			continue
		}
		return nil
	}
	sort.Strings(out)
	return out
}

// moduleNames are the names the table's imports column uses, and the
// package each stands for ("" for another module's package).
var moduleNames = map[string]string{
	"cmd": "cmd", "pipeline": "pipeline", "catalog": "catalog", "sqlparse": "sqlparse",
	"layout": "sqlparse/layout", "sqlparse/layout": "sqlparse/layout", "scan": "sqlparse/scan",
	"sqlparse/scan": "sqlparse/scan", "parse": "sqlparse/parse", "replay": "sqlparse/replay",
	"inspect": "inspect", "audit": "audit", "nullsafe": "audit/internal/nullsafe",
	"prose": "audit/internal/prose", "fixes": "audit/internal/fixes", "report": "report",
	"prove/witness": "prove/witness", "prove": "prove", "fixsql": "fixsql", "config": "config",
	"racetest": "racetest", "internal/newfindings": "internal/newfindings",
	"internal/pgsecret": "internal/pgsecret", "internal/inflect": "internal/inflect",
	"internal/humanize": "internal/humanize", "internal/suggest": "internal/suggest",
	"internal/pgcluster": "internal/pgcluster",
	"pgx":                "",
}
