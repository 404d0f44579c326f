package parse

import (
	"reflect"
	"runtime/debug"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// ParserModule is the module path of the parser this package is built
// with, read from one of its types, so that it follows the import when the
// parser's major version changes.
func ParserModule() string {
	return reflect.TypeOf(pg.ParseResult{}).PkgPath()
}

// ParserVersion is the version of the parser module the running binary
// was built with, from its build info ("unknown" without one).
func ParserVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	module := ParserModule()
	for _, dep := range bi.Deps {
		if dep.Path == module || strings.HasPrefix(module, dep.Path+"/") {
			if dep.Replace != nil && dep.Replace.Version != "" {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}
