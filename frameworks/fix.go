package frameworks

import (
	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// AddFixes puts the framework's own fixes before the SQL ones of every
// finding that a schema file's construct (or a migration of that
// framework's tree) produced.
func AddFixes(findings []audit.Finding, cat *catalog.Catalog, sources []*Source, pgVersion int) {
}
