package audit

import (
	"strings"
	"unicode"
)

// The words the unique-when-present reasoning reads in names, in one place
// (RULES.md, "Unique when present"). They are a fallback: a foreign key, a
// boolean or enum type, or a CHECK that lists the allowed values decide
// first, and a name is read only where the structure cannot tell.
// `idemcheck rules optional-unique` prints these lists, so what the rule
// believes is never hidden.
var (
	// claimWords mark a claim or dedupe table, in the table's name or in an
	// index name a person chose: a hole there is a duplicate charge.
	claimWords = []string{"idempot", "dedup", "duplicat", "claim", "guard"}

	// discriminatorWords are the last word of a column that sorts rows into
	// a few kinds ("event_type", "status"). A column whose first word is a
	// taskWords one and whose last is a nameWords one (task_name,
	// taskIdentifier) names the kind of work and is one too.
	discriminatorWords = []string{"kind", "type", "category", "status", "state", "role", "level", "mode", "tier",
		"stage", "phase", "channel", "platform", "provider", "source", "currency", "locale", "lang", "language",
		"region", "env", "environment", "action", "operation", "method", "format", "queue", "topic", "task",
		"variant"}
	taskWords = []string{"task", "job", "queue", "workflow", "event", "action", "operation", "step", "topic"}
	nameWords = []string{"name", "identifier", "slug"}

	// scopeWords end the name of a parent or tenant without an id suffix
	// ("account", "namespace").
	scopeWords = []string{"tenant", "org", "organization", "organisation", "account", "workspace", "team",
		"project", "namespace", "scope", "realm", "owner", "parent", "customer", "user", "company", "group"}

	// referenceSuffixes end the name of a column that holds another row's
	// id ("account_id", "runtimeEnvironmentId"): a parent, so scope.
	referenceSuffixes = []string{"id", "uuid", "fk"}

	// identityIDWords mark an id that does not point at a parent row: one
	// that comes from outside ("transaction_id", "external_subscription_id",
	// "stripe_event_id") or numbers the row itself ("sequential_id",
	// "public_id"). An identity value, whatever its suffix.
	identityIDWords = []string{"transaction", "txn", "tx", "request", "event", "message", "msg", "external", "ext",
		"remote", "upstream", "provider", "gateway", "idempotency", "idempotent", "dedup", "dedupe", "nonce",
		"correlation", "trace", "delivery", "webhook", "stripe", "paypal", "github", "google", "apple",
		"sequential", "seq", "sequence", "serial", "number", "num", "display", "public", "short", "human", "friendly"}

	// requestIDWords make nullable-key an error when a key part that is
	// never NULL is named so: the index deduplicates requests or events.
	requestIDWords = []string{"request", "event", "transaction", "txn", "idempotency", "idempotent", "dedup", "dedupe"}

	// idempotencyKeyWords mark an optional part that is itself an
	// idempotency or dedupe key: the finding then also describes the
	// fallback-key design.
	idempotencyKeyWords = []string{"idempot", "dedup"}
)

// nameTokens splits an identifier into lower-case words at underscores,
// hyphens, digits and camelCase humps: "runtimeEnvironmentId" is runtime,
// environment, id; "HTTPStatus" is http, status.
func nameTokens(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

func oneOf(word string, list []string) bool {
	for _, w := range list {
		if word == w {
			return true
		}
	}
	return false
}

func anyOf(words, list []string) bool {
	for _, w := range words {
		if oneOf(w, list) {
			return true
		}
	}
	return false
}

// containsAny reports whether s, lower-cased, contains any of the fragments.
func containsAny(s string, fragments []string) bool {
	s = strings.ToLower(s)
	for _, f := range fragments {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// wordListsDoc is the part of optional-unique's doc that shows the lists,
// each under what it decides, wrapped like the rest of the doc.
func wordListsDoc() string {
	var b strings.Builder
	list := func(label string, words []string) {
		b.WriteString(wrapWords("- ", "  ", strings.Fields(label+":")))
		for i := range words[:len(words)-1] {
			words[i] += ","
		}
		b.WriteString(wrapWords("    ", "    ", words))
	}
	b.WriteString("The name lists, read only where the structure cannot tell (one place in the\n" +
		"source: audit/keywords.go). Names are split into words at _ and camelCase humps.\n\n")
	list("a claim or dedupe table, when the table's name or an index name a person chose contains",
		append([]string(nil), claimWords...))
	list("a discriminator, when the column's last word is", append([]string(nil), discriminatorWords...))
	list("a task name (a discriminator), when the first word is one of "+strings.Join(taskWords, ", ")+
		" and the last one of", append([]string(nil), nameWords...))
	list("a parent or tenant (scope), when the last word is", append([]string(nil), scopeWords...))
	list("a reference to a parent row (scope), when the last word is", append([]string(nil), referenceSuffixes...))
	list("an identity although it ends in id (a value from outside, or the row's own number), when a word is",
		append([]string(nil), identityIDWords...))
	list("nullable-key is an error when a key part that is never NULL has a word",
		append([]string(nil), requestIDWords...))
	list("the optional part is an idempotency key (the finding gives the fallback-key design) when it contains",
		append([]string(nil), idempotencyKeyWords...))
	return strings.TrimRight(b.String(), "\n")
}

// wrapWords lays words out in lines of at most 84 characters, the first
// behind first, the others behind rest.
func wrapWords(first, rest string, words []string) string {
	var b strings.Builder
	line, empty := first, true
	for _, w := range words {
		if !empty && len(line)+1+len(w) > 84 {
			b.WriteString(line + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line, empty = line+w, false
	}
	return b.String() + line + "\n"
}
