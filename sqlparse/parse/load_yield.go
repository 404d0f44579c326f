package parse

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// What each path named on the command line yielded, so that a path or a
// layout that yields nothing is an error rather than a clean run: linting
// nothing proves nothing.

// fileYield is what one file yielded.
type fileYield struct {
	// statements counts the statements split, those skipped as template
	// control actions included: they are there, only not replayed.
	statements int
	errors     bool // the file could not be read or split cleanly
}

// pathYield is what one path argument yielded, over all its trees.
type pathYield struct {
	path    string
	forced  layout.Layout // --layout, "" when detected
	files   int
	fy      fileYield
	layouts []layout.Layout
	roots   []string
}

func (y *pathYield) add(f fileYield) {
	y.fy.statements += f.statements
	y.fy.errors = y.fy.errors || f.errors
}

func (y *pathYield) addTree(t *layout.Tree) {
	y.files += len(t.Files)
	if len(t.Files) > 0 {
		y.roots = append(y.roots, t.Root)
		if !containsLayout(y.layouts, t.Layout) {
			y.layouts = append(y.layouts, t.Layout)
		}
	}
}

func containsLayout(list []layout.Layout, l layout.Layout) bool {
	for _, x := range list {
		if x == l {
			return true
		}
	}
	return false
}

// empty returns the error for a path whose files yielded no statement.
// A path whose files all failed to read already has its errors, and one
// whose files were all excluded by the configuration was asked to yield
// nothing.
func (y *pathYield) empty() (scan.Diagnostic, bool) {
	if y.files == 0 || y.fy.statements > 0 || y.fy.errors {
		return scan.Diagnostic{}, false
	}
	names := make([]string, len(y.layouts))
	for i, l := range y.layouts {
		names[i] = string(l)
	}
	msg := fmt.Sprintf("%s: no statements in %s read as %s", y.path, countFiles(y.files), strings.Join(names, ", "))
	if y.forced != "" {
		msg = fmt.Sprintf("%s: --layout %s yields no statements from %s", y.path, y.forced, countFiles(y.files))
		if l := y.detected(); l != "" && l != y.forced {
			msg += fmt.Sprintf("; without --layout the files are read as %s", l)
		}
	}
	return scan.Diagnostic{Level: scan.Error, Message: msg + "; there is nothing to check"}, true
}

// detected is the layout detection finds for the first tree, when it is a
// directory, to say what --layout may have got wrong.
func (y *pathYield) detected() layout.Layout {
	if len(y.roots) == 0 {
		return ""
	}
	return layout.Detect(y.roots[0])
}

func countFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// skippedNotes says, for each file a layout leaves out, which and why.
func skippedNotes(skipped []layout.SkippedFile) []scan.Diagnostic {
	out := make([]scan.Diagnostic, 0, len(skipped))
	for _, s := range skipped {
		out = append(out, scan.Diagnostic{Level: scan.Note, Message: fmt.Sprintf("skipped %s: %s", s.Path, s.Reason)})
	}
	return out
}

// namedDownDiagnostics are for down migrations named on the command line.
// Beside up migrations they are left out with a note, never replayed; named
// alone they are an error, since replaying up migrations is all lint does.
func namedDownDiagnostics(named []layout.SkippedFile, anyUsed bool) []scan.Diagnostic {
	var out []scan.Diagnostic
	for _, s := range named {
		if anyUsed {
			out = append(out, scan.Diagnostic{Level: scan.Note, Message: fmt.Sprintf(
				"skipped %s: %s; lint replays only up migrations", s.Path, s.Reason)})
			continue
		}
		out = append(out, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
			"%s is %s; lint replays only up migrations: name the up migration or the migration directory", s.Path, s.Reason)})
	}
	return out
}
