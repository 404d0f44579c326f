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
	for _, d := range registry {
		if d.Marker != nil && d.Marker(head) {
			return d.Name
		}
	}
	return ""
}

// markerLine is a Marker: some line starts with marker (lower case), in
// any case.
func markerLine(marker string) func(head []byte) bool {
	return func(head []byte) bool { return hasMarkerLine(head, marker) }
}

// hasMarkerLine reports whether some line of head starts with marker (lower
// case), in any case. It looks for the marker itself and then at what
// comes before it on its line, which is much cheaper on a large dump than
// trimming every line.
func hasMarkerLine(head []byte, marker string) bool {
	for from := 0; ; {
		i := indexFold(head[from:], marker)
		if i < 0 {
			return false
		}
		i += from
		start := bytes.LastIndexByte(head[:i], '\n') + 1
		if len(bytes.TrimSpace(head[start:i])) == 0 {
			return true
		}
		from = i + 1
	}
}

// indexFold is the offset of the first match of marker (lower case) in s
// where ASCII letters may be in either case, or -1. The markers start with
// bytes that have no case ("-- +goose up"), so a plain search for those
// finds the candidates, and only they are compared letter by letter: a
// lower-cased copy of a large dump cost more than the rest of detection.
func indexFold(s []byte, marker string) int {
	lit := marker
	for i := 0; i < len(marker); i++ {
		if c := marker[i]; c >= 'a' && c <= 'z' {
			lit = marker[:i]
			break
		}
	}
	for from := 0; from+len(marker) <= len(s); {
		i := 0
		if lit != "" {
			i = bytes.Index(s[from:], []byte(lit))
			if i < 0 {
				return -1
			}
		}
		i += from
		if i+len(marker) > len(s) {
			return -1
		}
		if asciiEqualFold(s[i:i+len(marker)], marker) {
			return i
		}
		from = i + 1
	}
	return -1
}

// asciiEqualFold reports whether b is lower, with ASCII letters of b in
// either case.
func asciiEqualFold(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
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
