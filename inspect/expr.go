package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// exprFromServer turns expression text as the server prints it (pg_get_expr,
// pg_get_indexdef) into catalog.Expr through the same conversion replay
// uses, so the rules see one form from both sources. Text that does not
// parse stays Unknown, which proves nothing: a live catalog must never fail
// to load because of one odd expression.
func exprFromServer(text string) catalog.Expr {
	e, err := sqlparse.ParseExpr(text)
	if err != nil || e == nil {
		return &catalog.Unknown{Text: text}
	}
	return e
}
