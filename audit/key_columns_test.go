package audit

import (
	"slices"
	"strings"
	"testing"
)

// Every word the two key rules match is printed by `idemcheck rules ID`:
// the doc is built from the lists themselves, so a word added to a list
// shows up without anyone editing the doc.
func TestKeyRuleDocsShowTheirWords(t *testing.T) {
	for rule, lists := range map[*Rule][][]string{
		KeyWithoutUnique: {keyPurposeStems, keyNouns, clientWords, keyTypes, surrogateNames, duplicateFlagWords},
		IdempotencyTableShape: {keyPurposeStems, keyNouns, stateWords, leaseColumn.fragments, statusColumn.fragments,
			bodyColumn.fragments, fingerprintColumn.fragments},
	} {
		doc := strings.Join(strings.Fields(rule.Doc), " ")
		for _, list := range lists {
			if want := strings.Join(list, ", "); !strings.Contains(doc, want) {
				t.Errorf("%s: the doc does not list %q", rule.ID, want)
			}
		}
	}
}

// Names are read word by word, in snake_case and camelCase alike.
func TestNameWords(t *testing.T) {
	for name, want := range map[string][]string{
		"idempotencyKeyTtlMs":        {"idempotency", "key", "ttl", "ms"},
		"idempotency_key_expires_at": {"idempotency", "key", "expires", "at"},
		"HTTPRequestID":              {"http", "request", "id"},
		"v1_idempotency_key":         {"v1", "idempotency", "key"},
	} {
		if got := nameWords(name); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", name, got, want)
		}
	}
}

// The ASCII path cuts the same words as the general one.
func TestNameWordsASCIIPath(t *testing.T) {
	for _, name := range []string{
		"idempotencyKeyTtlMs", "HTTPRequestID", "v1_idempotency_key", "__a__", "a-b c.d", "ABC", "aB", "Ab",
		"x9Y", "requestIDs", "UUID_v4", "_", "", "a", "A", "already_lower", "eventType2Name", "XMLHttpRequest",
	} {
		if got, want := asciiNameWords(name), runeNameWords(name); !slices.Equal(got, want) {
			t.Errorf("asciiNameWords(%q) = %q, runeNameWords says %q", name, got, want)
		}
	}
}
