package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
)

// parseExpr turns expression text as the server prints it into catalog.Expr.
// It is sqlparse.ParseExpr once that is merged; until then every
// expression is Unknown, which the reasoner treats as proving nothing.
var parseExpr = func(text string) (catalog.Expr, error) {
	return &catalog.Unknown{Text: text}, nil
}

// exprFromServer parses text, keeping it as Unknown when it does not parse:
// a live catalog must never fail to load because of one odd expression.
func exprFromServer(text string) catalog.Expr {
	e, err := parseExpr(text)
	if err != nil || e == nil {
		return &catalog.Unknown{Text: text}
	}
	return e
}
