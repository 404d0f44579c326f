package parse

import (
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// The prefilter decides from a statement's leading tokens, and a cheap look
// at its text, that the statement cannot change anything replay models, so
// that Load never hands it to the parser: function bodies, views, grants,
// comments, data statements. Every rule here must agree with the replay
// switch: a statement is skipped only when replaying its parse tree would
// change neither the catalog nor the diagnostics. The one thing lost is
// that a skipped statement's syntax is not checked.

// skippableCreate are the objects after CREATE [OR REPLACE] that replay
// ignores. Functions, procedures and views need a look at their text first
// (see cannotChangeModel); materialized views are not here: they can carry
// indexes, and sequences take names that indexes then cannot have.
var skippableCreate = map[string]bool{
	"function": true, "procedure": true, "view": true, "trigger": true,
	"extension": true, "type": true, "policy": true, "aggregate": true, "role": true,
	"cast": true, "operator": true, "collation": true, "publication": true, "rule": true,
	"event": true, "constraint": true, // CONSTRAINT TRIGGER, EVENT TRIGGER
}

// skippableAlter are the objects after ALTER whose changes replay ignores,
// unless the statement renames something (ALTER VIEW ... RENAME COLUMN
// reaches the column-rename case of the switch).
var skippableAlter = map[string]bool{
	"function": true, "procedure": true, "routine": true, "aggregate": true, "sequence": true,
	"view": true, "materialized": true, "type": true, "schema": true, "default": true,
	"extension": true, "role": true, "database": true, "language": true, "operator": true,
	"policy": true, "trigger": true, "publication": true, "collation": true,
}

// skippableVerbs are leading keywords of statements that never change the
// model: privileges, data changes, maintenance, transaction control.
var skippableVerbs = map[string]bool{
	"grant": true, "revoke": true, "update": true, "delete": true, "copy": true,
	"truncate": true, "analyze": true, "analyse": true, "vacuum": true, "cluster": true,
	"reindex": true, "notify": true, "listen": true, "lock": true, "refresh": true,
	"begin": true, "commit": true, "rollback": true, "start": true, "end": true,
	"savepoint": true, "release": true, "security": true, "checkpoint": true,
}

// cannotChangeModel reports whether a single statement (not a
// StatementBegin/End block) can be skipped without parsing it.
func cannotChangeModel(text string) bool {
	words := scan.LeadingWords(text, 4)
	if len(words) == 0 {
		return false
	}
	switch verb := words[0]; {
	case skippableVerbs[verb]:
		return true
	case verb == "comment":
		return len(words) > 1 && words[1] == "on"
	case verb == "insert":
		// INSERT ... ON CONFLICT statements are collected for the
		// on-conflict rules.
		return !containsFold(text, "conflict")
	case verb == "select":
		// SELECT ... INTO creates a table; pg_dump's
		// set_config('search_path', ...) moves the search path.
		return !containsFold(text, "into") && !containsFold(text, "set_config")
	case verb == "set":
		// SET SCHEMA 'x' is SET search_path too.
		return !containsFold(text, "search_path") && !containsFold(text, "schema")
	case verb == "do":
		return !doMayChangeModel(text)
	case verb == "create":
		return skippableCreateStatement(text, words[1:])
	case verb == "alter":
		// ALTER TYPE ... ADD VALUE gives an enum a label.
		return len(words) > 1 && skippableAlter[words[1]] && !containsFold(text, "rename") &&
			!(words[1] == "type" && containsFold(text, "value"))
	}
	return false
}

// skippableCreateStatement handles CREATE [OR REPLACE] [TEMP] kind.
func skippableCreateStatement(text string, words []string) bool {
	if len(words) >= 2 && words[0] == "or" && words[1] == "replace" {
		words = words[2:]
	}
	for len(words) > 0 && (words[0] == "temp" || words[0] == "temporary" || words[0] == "recursive") {
		words = words[1:]
	}
	if len(words) == 0 || !skippableCreate[words[0]] {
		return false
	}
	switch words[0] {
	case "function", "procedure":
		// Replay records bodies that run DDL as unmodelled changes.
		return !bodyMayRunDDL(text)
	case "type":
		// Enum types are modelled: a column of one is a discriminator.
		return !containsFold(text, "enum")
	}
	return true
}

// bodyMayRunDDL is the cheap text check that keeps DO blocks and function
// bodies that run DDL going to the parser, so that replay still records
// them as unmodelled. It uses replay's own pattern over the whole statement,
// which holds the body; a backslash could hide a keyword behind an escape,
// so it counts too.
func bodyMayRunDDL(text string) bool {
	if strings.IndexByte(text, '\\') >= 0 {
		return true
	}
	// Every alternative of the pattern names one of these words; most
	// bodies have none, and the search is much cheaper than the pattern.
	if !containsFold(text, "table") && !containsFold(text, "index") &&
		!containsFold(text, "constraint") && !containsFold(text, "null") {
		return false
	}
	return DDLInBody.MatchString(text)
}

// doWords are words a DO block needs to change the model or to get a note:
// the statements replay follows inside one start with CREATE, ALTER or
// DROP, set the search_path, or are INSERT ... ON CONFLICT, and EXECUTE of
// SQL built at run time gets a note.
var doWords = []string{"create", "alter", "drop", "execute", "search_path", "conflict"}

// doMayChangeModel is the cheap text check that keeps DO blocks replay
// follows going to the parser.
func doMayChangeModel(text string) bool {
	if strings.IndexByte(text, '\\') >= 0 {
		return true
	}
	for _, w := range doWords {
		if containsFold(text, w) {
			return true
		}
	}
	return false
}

// ownerOrDefault matches what may follow the table name of an ALTER TABLE
// that changes only the owner or a column default, which replay ignores.
var ownerOrDefault = regexp.MustCompile(`(?is)^\s+(owner\s+to\s+[^\s,;]+|alter\s+(column\s+)?[a-z_][a-z0-9_$]*\s+set\s+default\s+[^,;]*)\s*$`)

// ownerOrAlter is the cheap check before ownerOrDefault: what follows the
// table name starts with OWNER or ALTER, after white space.
func ownerOrAlter(rest string) bool {
	w := strings.TrimLeft(rest, " \t\r\n\f\v")
	return len(w) > 5 && (strings.EqualFold(w[:5], "owner") || strings.EqualFold(w[:5], "alter"))
}

// ownerOrDefaultTable recognises ALTER TABLE [ONLY] [IF EXISTS] name OWNER
// TO role and ALTER TABLE ... ALTER COLUMN c SET DEFAULT expr, one per
// table in a pg_dump. Replay does nothing for them but look the table up,
// so instead of a parse tree they get the table to look up: a missing table
// still gives its note.
func ownerOrDefaultTable(text string, words []string) (*TableRef, bool) {
	if len(words) < 3 || words[0] != "alter" || words[1] != "table" {
		return nil, false
	}
	rest := strings.TrimLeft(text[len("alter"):], " \t\r\n")
	rest = strings.TrimLeft(rest[len("table"):], " \t\r\n")
	rv := &TableRef{}
	if w := scan.LeadingWords(rest, 1); len(w) == 1 && w[0] == "only" {
		rest = strings.TrimLeft(rest[len("only"):], " \t\r\n")
	}
	if w := scan.LeadingWords(rest, 2); len(w) == 2 && w[0] == "if" && w[1] == "exists" {
		rest = strings.TrimLeft(rest[len("if"):], " \t\r\n")
		rest, rv.MissingOk = strings.TrimLeft(rest[len("exists"):], " \t\r\n"), true
	}
	parts, rest, ok := scan.QualifiedName(rest)
	if !ok || len(parts) > 2 || !ownerOrAlter(rest) || !ownerOrDefault.MatchString(rest) {
		return nil, false
	}
	rv.Names = parts
	return rv, true
}

// TableRef is a table a skipped statement names: the parts of its
// qualified name as the lexer reads them, and whether IF EXISTS allows it to
// be missing.
type TableRef struct {
	Names     []string
	MissingOk bool
}

// containsFold reports whether text contains word, ignoring ASCII case;
// word must be lower case.
func containsFold(text, word string) bool {
	first := word[0]
	for i := 0; i+len(word) <= len(text); i++ {
		if text[i]|0x20 != first {
			continue
		}
		if strings.EqualFold(text[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// DDLInBody spots DDL that a function body or a skipped part of a DO block
// would run: replay records such code as unmodelled, and the prefilter
// keeps it going to the parser.
var DDLInBody = regexp.MustCompile(`(?is)\b(alter\s+table|create\s+(unique\s+)?index|drop\s+(table|index|constraint|not\s+null)|create\s+table|add\s+constraint)\b`)
