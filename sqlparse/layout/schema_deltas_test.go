package layout

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// The runner's rules beyond the fixture tree: a store given on its own,
// file names shared across stores in one version, a store without the
// snapshot, folders that are no version, and the placeholder it fills.
func TestSchemaDeltasRunnerRules(t *testing.T) {
	t.Run("a store given alone", func(t *testing.T) {
		dir := testtree.Write(t, map[string]string{
			"full_schemas/3/a.sql":  "CREATE TABLE a (id int);",
			"full_schemas/5/a.sql":  "CREATE TABLE a (id int, b int);",
			"delta/5/01x.sql":       "SELECT 1;",
			"delta/6/01y.sql":       "SELECT 2;",
			"delta/06/01z.sql":      "SELECT 3;",
			"delta/7/sub/01w.sql":   "SELECT 4;",
			"delta/7/02v.sql.other": "SELECT 5;",
			"delta/7/__pycache__/x": "",
			"delta/7/03u.pyc":       "",
		})
		trees, diags := Discover([]string{dir}, DiscoverOptions{})
		if len(diags) != 0 || len(trees) != 1 || trees[0].Layout != LayoutSchemaDeltas {
			t.Fatalf("trees %+v diags %v", trees, diags)
		}
		assertFiles(t, trees[0], dir, "full_schemas/5/a.sql", "delta/6/01y.sql")
		assertSkipped(t, trees[0], dir, map[string]string{
			"full_schemas/3/a.sql":  "snapshot 3 is not used",
			"delta/5/01x.sql":       "at or below snapshot 5",
			"delta/06/01z.sql":      "06 is no version number",
			"delta/7/sub/01w.sql":   "in a folder inside a version folder",
			"delta/7/02v.sql.other": "neither .sql",
		})
	})
	t.Run("one file name in two stores", func(t *testing.T) {
		dir := testtree.Write(t, map[string]string{
			"common/full_schemas/1/a.sql": "CREATE TABLE a (id int);",
			"main/full_schemas/1/b.sql":   "CREATE TABLE b (id int);",
			"common/delta/2/01same.sql":   "SELECT 1;",
			"main/delta/2/01same.sql":     "SELECT 2;",
		})
		_, diags := Discover([]string{dir}, DiscoverOptions{})
		if len(diags) != 1 || diags[0].Level != scan.Error ||
			!strings.Contains(diags[0].Message, filepath.Join(dir, "common/delta/2/01same.sql")) ||
			!strings.Contains(diags[0].Message, "share a file name") {
			t.Errorf("diags %v, want one error naming both files", diags)
		}
	})
	t.Run("a store without the snapshot", func(t *testing.T) {
		dir := testtree.Write(t, map[string]string{
			"common/full_schemas/4/a.sql": "CREATE TABLE a (id int);",
			"main/full_schemas/3/b.sql":   "CREATE TABLE b (id int);",
		})
		_, diags := Discover([]string{dir}, DiscoverOptions{})
		if len(diags) != 1 || diags[0].Level != scan.Error ||
			!strings.HasPrefix(diags[0].Message, filepath.Join(dir, "main/full_schemas")+": no folder 4") {
			t.Errorf("diags %v, want an error naming main/full_schemas", diags)
		}
	})
	t.Run("the placeholder of an auto-increment key", func(t *testing.T) {
		in := schemaDeltasUp(File{Path: "x.sql"}, "CREATE TABLE t (\n id $%AUTO_INCREMENT_PRIMARY_KEY%$,\n b int);\n")
		if in.Text != "CREATE TABLE t (\n id BIGINT PRIMARY KEY GENERATED ALWAYS AS IDENTITY,\n b int);\n" {
			t.Errorf("text = %q", in.Text)
		}
	})
}

func assertFiles(t *testing.T, tree Tree, dir string, want ...string) {
	t.Helper()
	var w []string
	for _, f := range want {
		w = append(w, filepath.Join(dir, f))
	}
	if got := filePaths(tree); strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Errorf("files:\n got %q\nwant %q", got, w)
	}
}

func assertSkipped(t *testing.T, tree Tree, dir string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, s := range tree.Skipped {
		got[s.Path] = s.Reason
	}
	for rel, reason := range want {
		p := filepath.Join(dir, rel)
		if !strings.Contains(got[p], reason) {
			t.Errorf("%s skipped for %q, want %q", rel, got[p], reason)
		}
	}
	if len(got) != len(want) {
		t.Errorf("skipped %v, want %d", tree.Skipped, len(want))
	}
}
