package parse

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// TestReservedWordsMatchParser checks scan's pure-Go keyword list against
// the parser pg_query_go embeds: every keyword of the grammar's kwlist.h is
// in the list exactly when the parser does not take it as a plain
// (unreserved) name, so a template stand-in is quoted where a bare word
// would not parse.
func TestReservedWordsMatchParser(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pganalyze/pg_query_go/v5").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dir := string(regexp.MustCompile(`\s+$`).ReplaceAll(out, nil))
	data, err := os.ReadFile(filepath.Join(dir, "parser", "include", "postgres", "parser", "kwlist.h"))
	if err != nil {
		t.Fatal(err)
	}
	words := regexp.MustCompile(`(?m)^PG_KEYWORD\("([a-z_]+)"`).FindAllSubmatch(data, -1)
	if len(words) < 400 {
		t.Fatalf("kwlist.h lists %d keywords", len(words))
	}
	for _, m := range words {
		w := string(m[1])
		res, err := pg.Scan(w)
		if err != nil || len(res.GetTokens()) != 1 {
			t.Fatalf("%s: %v", w, err)
		}
		k := res.GetTokens()[0].GetKeywordKind()
		want := k != pg.KeywordKind_NO_KEYWORD && k != pg.KeywordKind_UNRESERVED_KEYWORD
		if got := scan.IsReservedWord(w); got != want {
			t.Errorf("IsReservedWord(%q) = %v, the parser says %v", w, got, k)
		}
	}
	for _, w := range []string{"users", "payments", "placeholder"} {
		if scan.IsReservedWord(w) {
			t.Errorf("IsReservedWord(%q) = true", w)
		}
	}
}
