package replay

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// quickDeparse writes the commonest column defaults of a schema the way the
// deparser writes them, without the round trip through C that costs each
// of them more than the parse of a short statement: an integer, a decimal,
// true or false, NULL, a string, one of those cast to a type the deparser
// spells back plainly ('new'::varchar, '{}'::jsonb, NULL::text), and a call
// of a function named by one plain word on such arguments
// (gen_random_uuid(), nextval('s'::regclass)). Anything else goes to the
// deparser. The test holds its text to the deparser's over the fixtures'
// expressions and a written set.
func quickDeparse(n *pg.Node) (string, bool) {
	switch x := n.GetNode().(type) {
	case *pg.Node_AConst:
		return quickConst(x.AConst)
	case *pg.Node_TypeCast:
		c := x.TypeCast
		// The deparser puts a decimal or a negative integer in brackets
		// before a cast.
		k := c.GetArg().GetAConst()
		if k == nil || k.GetIval() != nil && k.GetIval().Ival < 0 || k.GetFval() != nil {
			return "", false
		}
		arg, ok := quickConst(k)
		if !ok {
			return "", false
		}
		typ, ok := quickTypeText(c.GetTypeName())
		// The deparser folds a string cast to boolean into true or false.
		if !ok || typ == "boolean" {
			return "", false
		}
		return arg + "::" + typ, true
	case *pg.Node_FuncCall:
		f := x.FuncCall
		if len(f.Funcname) != 1 || len(f.AggOrder) > 0 || f.AggFilter != nil || f.Over != nil ||
			f.AggWithinGroup || f.AggStar || f.AggDistinct || f.FuncVariadic || f.Funcformat != pg.CoercionForm_COERCE_EXPLICIT_CALL {
			return "", false
		}
		name := f.Funcname[0].GetString_().GetSval()
		if !plainName(name) {
			return "", false
		}
		args := make([]string, len(f.Args))
		for i, a := range f.Args {
			if a.GetFuncCall() != nil {
				return "", false
			}
			var ok bool
			if args[i], ok = quickDeparse(a); !ok {
				return "", false
			}
		}
		return name + "(" + strings.Join(args, ", ") + ")", true
	}
	return "", false
}

// quickConst writes a constant: an integer, a decimal as the parser kept
// its text, true or false, NULL, or a string of printable characters
// without a backslash (which the deparser writes as an E” string).
func quickConst(c *pg.A_Const) (string, bool) {
	if c.Isnull {
		if c.GetVal() != nil {
			return "", false
		}
		return "NULL", true
	}
	switch v := c.GetVal().(type) {
	case *pg.A_Const_Ival:
		if v.Ival == nil {
			return "", false
		}
		return strconv.FormatInt(int64(v.Ival.Ival), 10), true
	case *pg.A_Const_Fval:
		f := v.Fval.GetFval()
		if f == "" {
			return "", false
		}
		for i := 0; i < len(f); i++ {
			if !(f[i] >= '0' && f[i] <= '9' || f[i] == '.') {
				return "", false
			}
		}
		return f, true
	case *pg.A_Const_Boolval:
		if v.Boolval == nil {
			return "", false
		}
		return strconv.FormatBool(v.Boolval.Boolval), true
	case *pg.A_Const_Sval:
		s := v.Sval.GetSval()
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\' {
				return "", false
			}
		}
		return "'" + strings.ReplaceAll(s, "'", "''") + "'", true
	}
	return "", false
}

// quickCatalogTypes are the built-in types as the deparser writes them
// back.
var quickCatalogTypes = map[string]string{
	"varchar": "varchar", "int4": "int", "int8": "bigint", "int2": "smallint", "float4": "real",
	"float8": "double precision", "numeric": "numeric", "timestamp": "timestamp", "time": "time", "bool": "boolean",
}

// quickTypeText writes a cast's type: a built-in of quickCatalogTypes (with
// integer modifiers for varchar and numeric), or a plain name of one or
// two parts, and [] for each array bound.
func quickTypeText(tn *pg.TypeName) (string, bool) {
	if tn == nil || tn.Setof || tn.PctType || tn.Typemod != -1 {
		return "", false
	}
	var names []string
	for _, n := range tn.Names {
		s := n.GetString_()
		if s == nil {
			return "", false
		}
		names = append(names, s.Sval)
	}
	var text string
	switch {
	case len(names) == 2 && names[0] == "pg_catalog":
		var ok bool
		if text, ok = quickCatalogTypes[names[1]]; !ok {
			return "", false
		}
		if len(tn.Typmods) > 0 && names[1] != "varchar" && names[1] != "numeric" {
			return "", false
		}
	case len(names) == 1 && plainName(names[0]):
		text = names[0]
	case len(names) == 2 && plainName(names[0]) && plainName(names[1]):
		text = names[0] + "." + names[1]
	default:
		return "", false
	}
	if len(tn.Typmods) > 0 {
		mods := make([]string, len(tn.Typmods))
		for i, m := range tn.Typmods {
			k := m.GetAConst()
			if k == nil || k.Isnull || k.GetIval() == nil {
				return "", false
			}
			mods[i] = strconv.FormatInt(int64(k.GetIval().Ival), 10)
		}
		text += "(" + strings.Join(mods, ", ") + ")"
	}
	for _, b := range tn.ArrayBounds {
		if b.GetInteger() == nil || b.GetInteger().Ival != -1 {
			return "", false
		}
		text += "[]"
	}
	return text, true
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
