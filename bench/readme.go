package main

import (
	"bytes"
	"fmt"
	"os"
)

// The performance table of docs/performance.md lies between these two
// lines, so that one bench run can rewrite it whole (-readme
// docs/performance.md) and no figure in it is copied by hand from another
// run.
const (
	readmeStart = "<!-- bench:start (go run ./bench -readme docs/performance.md writes this table) -->\n"
	readmeEnd   = "<!-- bench:end -->\n"
)

// writeReadme replaces the table between the markers in path with table.
func writeReadme(path string, table []byte) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	start := bytes.Index(data, []byte(readmeStart))
	end := bytes.Index(data, []byte(readmeEnd))
	if start < 0 || end < start {
		return fmt.Errorf("%s: no %q ... %q block to replace", path, readmeStart, readmeEnd)
	}
	var out bytes.Buffer
	out.Write(data[:start+len(readmeStart)])
	out.WriteString("\n")
	out.Write(table)
	out.WriteString("\n")
	out.Write(data[end:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
