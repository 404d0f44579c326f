package layout

import (
	"bytes"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutLiquibase is Liquibase's formatted SQL changelogs.
const LayoutLiquibase Layout = "liquibase"

// liquibaseHeader is the first line of a formatted SQL changelog.
const liquibaseHeader = "--liquibase formatted sql"

var liquibase = &Def{
	Bookkeeping: []string{liquibaseChangelog, liquibaseLock},
	Name:        LayoutLiquibase,
	Tool:        "Liquibase",
	Files:       "`--liquibase formatted sql`",
	UpPart:      "each changeset, rollbacks skipped",
	Order:       "file, then changeset",
	Marker: func(head []byte) bool {
		firstLine, _, _ := bytes.Cut(head, []byte("\n"))
		firstLine = bytes.TrimSpace(firstLine)
		return len(firstLine) >= len(liquibaseHeader) && asciiEqualFold(firstLine, liquibaseHeader)
	},
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped := listNamedFiles(t.display, LayoutLiquibase, t.sc.sqlFiles)
		files, diags := sortFiles(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		return files, skipped, diags
	},
	Up: liquibaseUp,

	// The tool drops a leading UTF-8 byte order mark.
	DropsBOM: true,
}

// liquibaseUp keeps every changeset and blanks "--rollback" lines. A
// changeset with splitStatements:false is one statement.
func liquibaseUp(f File, text string) scan.Input {
	in := scan.Input{Path: f.Path}
	b := newBlanker(text)
	whole := -1
	lines := splitLines(text)
	closeWhole := func(end int) {
		if whole >= 0 {
			in.Whole = append(in.Whole, scan.Range{Start: whole, End: end})
			whole = -1
		}
	}
	for _, l := range lines {
		t := strings.ToLower(strings.TrimSpace(l.text))
		switch {
		case strings.HasPrefix(t, "--changeset"):
			closeWhole(l.start)
			if strings.Contains(t, "runintransaction:false") {
				in.NoTransaction = true
			}
			if strings.Contains(t, "splitstatements:false") {
				whole = l.end
			}
		case strings.HasPrefix(t, "--rollback"):
			b.blank(l.start, l.end)
		}
	}
	closeWhole(len(text))
	in.Text = string(b.buf)
	return in
}
