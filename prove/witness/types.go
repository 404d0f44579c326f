package witness

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// colType is a column's type as the witness needs it: the built-in type
// underneath (through domains), its modifiers, whether it is an array, the
// enum's labels, and the domains' CHECKs a value must pass.
type colType struct {
	// base is the built-in type's name, lower case, without modifiers:
	// "integer", "character varying", "timestamp with time zone".
	base    string
	mods    []int
	array   bool
	enum    *catalog.Enum
	domains []*catalog.Domain
	// written is the type as the column has it, for messages.
	written string
}

var modsRE = regexp.MustCompile(`\(([0-9, ]+)\)`)

// resolveType follows a column's type through domains to what a value is
// built for.
func resolveType(cat *catalog.Catalog, typ string) colType {
	ct := colType{written: typ}
	for depth := 0; depth < 8; depth++ {
		t := strings.TrimSpace(typ)
		if strings.HasSuffix(t, "[]") {
			ct.array = true
			t = strings.TrimSuffix(t, "[]")
		}
		if m := modsRE.FindStringSubmatch(t); m != nil && len(ct.mods) == 0 {
			for _, p := range strings.Split(m[1], ",") {
				if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil {
					ct.mods = append(ct.mods, n)
				}
			}
		}
		t = strings.TrimSpace(modsRE.ReplaceAllString(t, ""))
		schema, name := splitType(t)
		if cat != nil && !ct.array {
			if d := cat.ResolveDomain(schema, name); d != nil {
				ct.domains = append(ct.domains, d)
				typ = d.Type
				continue
			}
			if e := cat.ResolveEnum(schema, name); e != nil {
				ct.enum = e
				ct.base = name
				return ct
			}
		}
		if schema == "pg_catalog" {
			schema = ""
		}
		ct.base = strings.ToLower(name)
		if schema != "" {
			ct.base = schema + "." + ct.base
		}
		return ct
	}
	ct.base = typ
	return ct
}

// splitType splits "schema.name" (either may be quoted) into its parts.
func splitType(t string) (schema, name string) {
	dot, quoted := -1, false
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '"':
			quoted = !quoted
		case t[i] == '.' && !quoted:
			dot = i
		}
	}
	if dot < 0 {
		return "", unquote(t)
	}
	return unquote(t[:dot]), unquote(t[dot+1:])
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// typeAliases are the short names a migration may write for a type, and
// the name format_type prints.
var typeAliases = map[string]string{
	"int": "integer", "int4": "integer", "int2": "smallint", "int8": "bigint", "bool": "boolean",
	"varchar": "character varying", "char": "character", "bpchar": "character", "float4": "real",
	"float8": "double precision", "float": "double precision", "decimal": "numeric",
	"timestamptz": "timestamp with time zone", "timestamp": "timestamp without time zone",
	"timetz": "time with time zone", "time": "time without time zone", "varbit": "bit varying",
	"serial": "integer", "bigserial": "bigint", "smallserial": "smallint",
}

func canonical(base string) string {
	if a, ok := typeAliases[base]; ok {
		return a
	}
	return base
}

// classOf is the evaluator's kind for a type name.
func classOf(base string) kind {
	switch canonical(base) {
	case "smallint", "integer", "bigint", "numeric", "real", "double precision", "money", "oid":
		return number
	case "text", "character varying", "character", "citext", "name":
		return text
	case "boolean":
		return boolean
	}
	return opaque
}

// integerTypes can hold an identity.
var integerTypes = map[string]bool{"smallint": true, "integer": true, "bigint": true}

// baseValues returns up to n distinct values of the built-in type ct, as
// literals a column of that type accepts, or nil for a type the witness
// cannot build a value for. Enum labels come in their order.
func baseValues(ct colType, n int) []val {
	if ct.enum != nil {
		var out []val
		for _, l := range ct.enum.Labels {
			if len(out) == n {
				break
			}
			out = append(out, textVal(l))
		}
		return out
	}
	var out []val
	for i := 1; i <= n; i++ {
		v, ok := scalarValue(canonical(ct.base), ct.mods, i)
		if !ok {
			break // a boolean has two values
		}
		if ct.array {
			inner := strings.Trim(v.sql, "'")
			v = val{kind: opaque, s: "{" + inner + "}", sql: quote("{" + inner + "}")}
		}
		out = append(out, v)
	}
	return out
}

// scalarValue is the i-th value (1, 2, ...) of a built-in type.
func scalarValue(base string, mods []int, i int) (val, bool) {
	opq := func(s string) (val, bool) { return val{kind: opaque, s: s, sql: quote(s)}, true }
	switch base {
	case "smallint", "integer", "bigint", "real", "double precision", "money", "oid":
		return numVal(float64(i)), true
	case "numeric":
		if len(mods) == 2 && mods[0]-mods[1] < 1 {
			// numeric(2,2) holds no 1: a fraction of the right scale.
			return numVal(float64(i) / pow10(mods[1])), true
		}
		return numVal(float64(i)), true
	case "text", "character varying", "citext", "name":
		return textVal(word(i)), true
	case "character":
		w := word(i)
		if len(mods) == 1 && mods[0] > len(w) {
			w += strings.Repeat(" ", mods[0]-len(w))
		}
		return textVal(w), true
	case "boolean":
		if i > 2 {
			return val{}, false
		}
		return boolVal(i == 1), true
	case "json", "jsonb":
		if i == 1 {
			return opq("{}")
		}
		return opq(fmt.Sprintf(`{"n": %d}`, i))
	case "bit":
		width := 1
		if len(mods) == 1 && mods[0] > 0 {
			width = mods[0]
		}
		bits := strconv.FormatInt(int64(i-1), 2)
		if len(bits) > width {
			return val{}, false
		}
		return opq(strings.Repeat("0", width-len(bits)) + bits)
	case "bit varying":
		return opq(strconv.FormatInt(int64(i), 2))
	case "tsvector", "tsquery":
		return opq(word(i))
	}
	if format, ok := literalFormats[base]; ok {
		return opq(strings.ReplaceAll(format, "%d", fmt.Sprint(i)))
	}
	return val{}, false
}

// literalFormats write the i-th value of a type, %d standing for i.
var literalFormats = map[string]string{
	"uuid":                        "00000000-0000-4000-8000-00000000000%d",
	"date":                        "2000-01-1%d",
	"timestamp with time zone":    "2000-01-01 00:00:1%d+00",
	"timestamp without time zone": "2000-01-01 00:00:1%d",
	"time without time zone":      "00:00:1%d",
	"time with time zone":         "00:00:1%d+00",
	"interval":                    "%d days",
	"bytea":                       `\x0%d`,
	"inet":                        "127.0.0.%d",
	"cidr":                        "10.%d.0.0/16",
	"macaddr":                     "08:00:2b:01:02:0%d",
	"macaddr8":                    "08:00:2b:01:02:03:04:0%d",
	"xml":                         "<w>%d</w>",
	"point":                       "(%d,0)",
	"box":                         "(0,0),(%d,%d)",
	"circle":                      "<(0,0),%d>",
	"int4range":                   "[1,1%d)",
	"int8range":                   "[1,1%d)",
	"numrange":                    "[1,1%d)",
	"daterange":                   "[2000-01-01,2000-01-1%d)",
	"tsrange":                     "[2000-01-01,2000-01-1%d)",
	"tstzrange":                   "[2000-01-01,2000-01-1%d)",
}

func pow10(n int) float64 {
	p := 1.0
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// word is the i-th short text value: "a", "b", ... then "a2" ...
func word(i int) string {
	if i <= 26 {
		return string(rune('a' + i - 1))
	}
	return fmt.Sprintf("a%d", i)
}

// valueFor types a value built from a constant for the column's type: a
// constant of the column's class keeps its kind, a text literal for an
// opaque type (a date, a label) stays opaque.
func valueFor(ct colType, v val) val {
	cls := kindOf(ct)
	switch {
	case v.null || v.unknown:
		return v
	case cls == opaque && v.kind == text:
		v.kind = opaque
	case cls == number && v.kind == text:
		if n, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64); err == nil {
			return numVal(n)
		}
		return unknownVal
	case cls == text && v.kind == number:
		return textVal(v.sql)
	case cls == boolean && v.kind == text:
		if b, ok := boolWord(v.s); ok {
			return boolVal(b)
		}
		return unknownVal
	}
	return v
}

// kindOf is the evaluator's kind for values of a column type.
func kindOf(ct colType) kind {
	switch {
	case ct.enum != nil:
		return text // labels compare as the words they are
	case ct.array:
		return opaque
	}
	return classOf(ct.base)
}
