package layout

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Layout names a migration tool's way of laying out and ordering files
// (docs/layouts.md). It decides which files are used, which part of each file is
// the "up" SQL, and the order in which they are replayed.
type Layout string

// contentLayout guesses a layout from markers in a file's text, or "":
// the first layout of the registry whose marker the text carries.
func contentLayout(data []byte) Layout {
	head := bytes.TrimPrefix(data, []byte(utf8BOM))
	if len(head) > 1<<20 {
		head = head[:1<<20]
	}
	lower := bytes.ToLower(head)
	for _, d := range registry {
		if d.Marker != nil && d.Marker(head, lower) {
			return d.Name
		}
	}
	return ""
}

// markerLine is a Marker: some line starts with marker (lower case).
func markerLine(marker string) func(head, lower []byte) bool {
	return func(head, lower []byte) bool { return hasMarkerLine(lower, marker) }
}

// hasMarkerLine reports whether some line starts with marker (lower case).
func hasMarkerLine(lower []byte, marker string) bool {
	for line := range bytes.Lines(lower) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte(marker)) {
			return true
		}
	}
	return false
}

// downKind says what kind of down migration a file name is ("a down
// migration", "an undo migration", ...), or "" when it is not one.
// idemcheck never replays them.
func downKind(name string) string {
	lower := strings.ToLower(name)
	if flywayUndo.MatchString(name) {
		return "an undo migration"
	}
	base := trimSQLSuffix(lower)
	for _, k := range []struct{ word, kind string }{
		{"down", "a down migration"}, {"undo", "an undo migration"},
		{"rollback", "a rollback script"}, {"revert", "a revert script"},
	} {
		w := k.word
		if base == w || strings.HasSuffix(base, "."+w) || strings.HasSuffix(base, "_"+w) ||
			strings.HasSuffix(base, "-"+w) || strings.Contains(base, "."+w+".") {
			return k.kind
		}
	}
	return ""
}

// fileLayout guesses the layout of one file given on its own, from its name
// and then its content.
func fileLayout(name string, data []byte) Layout {
	base := filepath.Base(name)
	switch {
	case flywayVersioned.MatchString(base) || flywayRepeat.MatchString(base):
		return LayoutFlyway
	case dialectUp.MatchString(strings.ToLower(base)):
		return LayoutMultiDialect
	case strings.HasSuffix(base, ".up.sql"):
		return LayoutGolangMigrate
	}
	if l := contentLayout(data); l != "" {
		return l
	}
	if len(data) >= dumpMinSize || base == "structure.sql" {
		return LayoutDump
	}
	return LayoutPlain
}
