package layout

import (
	"strings"
)

// normalizeDigits keeps a version's digits without leading zeros, so that
// "002" and "2" (which the tools treat as the same version) compare equal.
func normalizeDigits(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] >= '0' && v[i] <= '9' {
			b.WriteByte(v[i])
		}
	}
	s := strings.TrimLeft(b.String(), "0")
	if s == "" && v != "" {
		return "0"
	}
	return s
}

// digitRun is a run of digits without its leading zeros ("0" for zeros
// only): normalizeDigits for a run that holds nothing else, without
// building a string.
func digitRun(d string) string {
	if t := strings.TrimLeft(d, "0"); t != "" {
		return t
	}
	return "0"
}

// compareDigitStrings compares two runs of digits without leading zeros as
// numbers of any size.
func compareDigitStrings(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// compareNumericVersion orders by version as a number (2 before 10).
func compareNumericVersion(a, b File) int {
	return compareDigitStrings(normalizeDigits(a.Version), normalizeDigits(b.Version))
}

// compareDotted compares versions made of numbers separated by dots or
// underscores, part by part as numbers: 1.9 before 1.10, 1.0 equal to 1.
func compareDotted(a, b string) int {
	ap, bp := flywayParts(a), flywayParts(b)
	for i := 0; i < len(ap) || i < len(bp); i++ {
		x, y := "0", "0"
		if i < len(ap) {
			x = ap[i]
		}
		if i < len(bp) {
			y = bp[i]
		}
		if c := compareDigitStrings(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// flywayParts splits "1_10.2" into normalized parts ["1", "10", "2"].
func flywayParts(v string) []string {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '_' })
	for i, p := range parts {
		parts[i] = normalizeDigits(p)
	}
	return parts
}

// naturalCompare orders strings with runs of digits compared as numbers
// ("2_x" before "10_x").
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		ad, bd := digitsAt(a, 0), digitsAt(b, 0)
		if ad > 0 && bd > 0 {
			if c := compareDigitStrings(digitRun(a[:ad]), digitRun(b[:bd])); c != 0 {
				return c
			}
			a, b = a[ad:], b[bd:]
			continue
		}
		if a[0] != b[0] {
			if a[0] < b[0] {
				return -1
			}
			return 1
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}
