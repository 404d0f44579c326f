package nullsafe

import "github.com/idemcheck/idemcheck/catalog"

// maxProofDepth bounds how deeply nested an expression the null-safety
// reasoner evaluates. eval looks every subexpression up by its text, which
// costs the subexpression's size, and catalog's String builds text by
// concatenation, so a hostile predicate nested thousands of levels deep
// would take hours. Real predicates are a few levels deep; anything past the
// bound is simply not proven safe (the finding stays, never a false "safe").
const maxProofDepth = 64

// tooDeep reports whether any of exprs nests deeper than maxProofDepth.
func tooDeep(exprs ...catalog.Expr) bool {
	for _, e := range exprs {
		if exprDepth(e, 0) > maxProofDepth {
			return true
		}
	}
	return false
}

// exprDepth returns the nesting depth of e, stopping early once it passes
// the bound so that the walk itself stays linear.
func exprDepth(e catalog.Expr, above int) int {
	if e == nil || above > maxProofDepth {
		return above
	}
	deepest := above + 1
	for _, child := range catalog.Children(e) {
		if d := exprDepth(child, above+1); d > deepest {
			deepest = d
		}
	}
	return deepest
}
