// Package humanize writes counts the way idemcheck's sentences say them:
// "1 file", "1,840 statements". Every report, the race output and the bench
// tables count through it, so that they agree on separators and plurals.
//
// It is written here rather than taken from a library: the two functions
// are a dozen lines, and github.com/dustin/go-humanize would need two calls
// (Comma and english.PluralWord) for what Count does in one, for a
// dependency the binary does not otherwise need.
package humanize

import "strconv"

// Count is n with thousands separators and the noun that agrees with it:
// one for 1, many otherwise ("0 files", "1 file", "2,048 files").
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Thousands writes n with a comma every three digits: 1840 is "1,840".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
