// Package layout knows how migration tools lay out their files: it finds
// migration trees under the paths it is given, detects each tree's layout
// (golang-migrate, goose, Flyway, ...), chooses and orders the files the
// tool would apply, reads them, and cuts out the "up" part of each as a
// scan.Input with the file's own offsets.
//
// It is pure Go: it needs no cgo and imports only catalog and
// sqlparse/scan. It never prints; what it has to say comes back as
// scan.Diagnostics.
package layout
