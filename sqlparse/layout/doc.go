// Package layout knows how migration tools lay out their files: it finds
// migration trees under the paths it is given, detects each tree's layout
// (golang-migrate, goose, Flyway, ...), chooses and orders the files the
// tool would apply, reads them, and cuts out the "up" part of each as a
// scan.Input with the file's own offsets.
//
// Each layout is one value, a Def, in a file of its own (goose.go,
// flyway.go, ...): its name, its row of the docs table, how it is detected, how its
// files are listed and ordered, how its up part is cut, and how lint
// --fix-sql writes a migration in it. The registry (registry.go) lists them;
// discovery, package fixsql, --layout and the table of docs/layouts.md all read it.
//
// It is pure Go: it needs no cgo and imports only catalog and
// sqlparse/scan. It never prints; what it has to say comes back as
// scan.Diagnostics.
package layout
