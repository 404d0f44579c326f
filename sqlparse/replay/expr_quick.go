package replay

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// quickDeparse writes the commonest column defaults of a schema the way the
// deparser writes them, without the round trip through C that costs each
// of them more than the parse of a short statement: an integer, true or
// false, and a call without arguments of a function named by one plain
// word (gen_random_uuid(), now()). Anything else goes to the deparser. The
// test holds its text to the deparser's over the fixtures' expressions.
func quickDeparse(n *pg.Node) (string, bool) {
	switch x := n.GetNode().(type) {
	case *pg.Node_AConst:
		c := x.AConst
		switch v := c.GetVal().(type) {
		case *pg.A_Const_Ival:
			if c.Isnull || v.Ival == nil {
				return "", false
			}
			return strconv.FormatInt(int64(v.Ival.Ival), 10), true
		case *pg.A_Const_Boolval:
			if c.Isnull || v.Boolval == nil {
				return "", false
			}
			return strconv.FormatBool(v.Boolval.Boolval), true
		}
	case *pg.Node_FuncCall:
		f := x.FuncCall
		if len(f.Funcname) != 1 || len(f.Args) > 0 || len(f.AggOrder) > 0 || f.AggFilter != nil || f.Over != nil ||
			f.AggWithinGroup || f.AggStar || f.AggDistinct || f.FuncVariadic || f.Funcformat != pg.CoercionForm_COERCE_EXPLICIT_CALL {
			return "", false
		}
		name := f.Funcname[0].GetString_().GetSval()
		if !plainName(name) {
			return "", false
		}
		return name + "()", true
	}
	return "", false
}

// plainName reports whether the deparser writes name without quotes:
// lower-case letters, digits and underscores, not starting with a digit,
// and no keyword but an unreserved one.
func plainName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return !scan.IsReservedWord(name)
}
