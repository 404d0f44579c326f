package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/fixsql"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// writeFixSQL is --fix-sql: an existing directory gets the next migration
// in its layout (named after the tree lint read there, or detected); any
// other path is written as one file. It says on stderr what it wrote.
func writeFixSQL(target string, findings []audit.Finding, trees []sqlparse.Tree, layout sqlparse.Layout, s *Streams) error {
	info, err := os.Stat(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return usageError("--fix-sql %s: %v", target, err)
	}
	if err != nil || !info.IsDir() {
		if err := os.WriteFile(target, []byte(fixsql.Single(findings)), 0o644); err != nil {
			return usageError("--fix-sql: %v", err)
		}
		_, err := fmt.Fprintf(s.Err, "wrote %s\n", target)
		return err
	}
	tree, err := treeAt(target, trees, layout)
	if err != nil {
		return err
	}
	files, err := fixsql.Migration(findings, tree.Layout, tree.Files, time.Now())
	if err != nil {
		return usageError("--fix-sql %s: %v", target, err)
	}
	if len(files) == 0 {
		_, err := fmt.Fprintf(s.Err, "--fix-sql: no finding has a fix; nothing written to %s\n", target)
		return err
	}
	return writeFiles(target, files, s.Err)
}

// treeAt is the migration tree in dir: the one lint already read there, or
// the one discovery finds.
func treeAt(dir string, trees []sqlparse.Tree, layout sqlparse.Layout) (sqlparse.Tree, error) {
	for _, t := range trees {
		if filepath.Clean(t.Root) == filepath.Clean(dir) {
			return t, nil
		}
	}
	found, diags := sqlparse.Discover([]string{dir}, sqlparse.DiscoverOptions{Layout: layout})
	for _, d := range diags {
		if d.Level == sqlparse.Error {
			return sqlparse.Tree{}, usageError("--fix-sql %s: %s", dir, d)
		}
	}
	if len(found) != 1 {
		return sqlparse.Tree{}, usageError("--fix-sql %s: expected one migration tree there, found %d; give a file name or --layout", dir, len(found))
	}
	return found[0], nil
}

// writeFiles writes each file into dir, refusing to overwrite one that
// exists (a name clash means the version guess is wrong).
func writeFiles(dir string, files []fixsql.File, log io.Writer) error {
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return usageError("--fix-sql: %v", err)
		}
		_, werr := io.WriteString(out, f.Content)
		if cerr := out.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return usageError("--fix-sql: %v", werr)
		}
		if _, err := fmt.Fprintf(log, "wrote %s\n", p); err != nil {
			return err
		}
	}
	return nil
}
