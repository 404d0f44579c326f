package audit

import (
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// Escape is the hole a finding is about, in the model's own terms, for the
// witness builder (package prove/witness): the table, the unique index, the
// key parts two rows leave NULL, and for on-conflict-hole the statement the
// rows go through. Rules set it; the report never prints it.
type Escape struct {
	Table *catalog.Table
	Index *catalog.Index
	// Parts are the key parts through which rows escape Index; the witness
	// leaves the first NULL.
	Parts []catalog.IndexPart
	// Present are the index's parts that are unique only when present
	// (optional-unique): the witness gives them a value.
	Present []catalog.IndexPart
	// Query is the INSERT ... ON CONFLICT of an on-conflict-hole finding:
	// the witness runs it twice. Nil for the other rules.
	Query *catalog.Query
}

// WitnessLabel is how every format introduces a witness.
const WitnessLabel = "on a copy of the table without its foreign keys"

// Witness is the evidence for a hole: two statements that insert rows the
// index should refuse as duplicates, run inside BEGIN ... ROLLBACK on a
// copy of the table. Package prove/witness builds it from the model; package
// prove runs it. A witness that could not be built has Rows empty and says
// why in NotBuilt.
type Witness struct {
	// Rows are the two INSERT statements (for on-conflict-hole, the
	// statement twice with its parameters given values).
	Rows []string
	// NotBuilt says why there are no Rows ("no value of type geometry").
	NotBuilt string
	// Notes say what the builder could not check itself (a CHECK it does
	// not evaluate): the scratch server decides.
	Notes []string

	// What the prover runs, which the formats do not print.

	// Setup builds the copy in an empty database, one statement each.
	Setup []SetupStep
	// Verify is a query over the copy that returns one boolean, true when
	// the rows in it are the duplicates the finding describes: two of
	// them, inside the index's predicate, with the other key parts equal
	// and the hole part NULL.
	Verify string
	// InIndex is a query over a copy holding the first row alone, true
	// when that row is inside the index's predicate with the hole part
	// NULL: a second row refused by the index itself then refutes the
	// finding, rather than showing that the witness missed the hole.
	InIndex string
	// Fix is the finding's first SQL fix in its non-CONCURRENTLY form;
	// Alternatives are the next SQL fixes in the same form, tried on a
	// scratch server too old for the first (NULLS NOT DISTINCT needs 15).
	Fix          *WitnessFix
	Alternatives []*WitnessFix
	// Table is the table as the statements name it; Index the name of
	// the index with the hole.
	Table string
	Index string
	// OnConflict is set when Rows are an INSERT ... ON CONFLICT: then a
	// unique violation on another index is what the finding says happens,
	// and only a conflict that fires (no second row) refutes it.
	OnConflict bool
}

// SetupStep is one statement of a copy. Part names what it builds (a
// CHECK, a unique index, a default): when the scratch server refuses it,
// or SQL is empty because the model could not render it, the finding is
// not proven for want of that part.
//
// A CHECK added NOT VALID proves nothing about the rows written before it
// (NotValid holds its name): the witness rows stand for such rows, so the
// first copy leaves it out, and the second copy has it only when the fix
// names it (a fix that validates it).
type SetupStep struct {
	SQL      string
	Part     string
	NotValid string
}

// SQL is the witness as every format prints it: its two statements inside
// BEGIN ... ROLLBACK, or "" when none could be built.
func (w *Witness) SQL() string {
	if w == nil || len(w.Rows) == 0 {
		return ""
	}
	return "BEGIN;\n" + strings.Join(w.Rows, "\n") + "\nROLLBACK;"
}

// WitnessFix is one fix as the prover applies it to a copy: its
// statements without CONCURRENTLY, and the major version it needs (15 for
// NULLS NOT DISTINCT, zero for any).
type WitnessFix struct {
	Title      string
	Statements []string
	Needs      int
}

// Verdict is what the scratch server made of a witness.
type Verdict int

const (
	// NotProven: the witness could not be run to a conclusion (a CHECK
	// refused the first row, a type has no value, the copy could not be
	// made); the finding stands as the rules judged it.
	NotProven Verdict = iota
	// Proven: PostgreSQL accepted both rows.
	Proven
	// Refuted: PostgreSQL refused the second row on the first try, so the
	// finding is a false alarm.
	Refuted
)

func (v Verdict) String() string {
	switch v {
	case Proven:
		return "proven"
	case Refuted:
		return "refuted"
	}
	return "not proven"
}

// FixVerdict is what the fix did to the witness on a second copy.
type FixVerdict int

const (
	// FixNotRun: the witness was not proven, or no SQL fix could be applied.
	FixNotRun FixVerdict = iota
	// FixRefused: with the fix applied PostgreSQL refused the rows.
	FixRefused
	// FixAccepted: the fix let both rows in, a defect in the fix.
	FixAccepted
)

// Proof is what --prove found for one finding.
type Proof struct {
	Verdict Verdict
	// Message is the whole verdict in words, starting with it: "proven:
	// PostgreSQL 16.4 accepted both rows; with the fix applied it refused
	// them (23505 on the second row)".
	Message string
	// Server is the scratch server's version ("16.4").
	Server string
	Fix    FixVerdict
	// FixTitle names the fix that was applied; FixSQLState is the code
	// PostgreSQL refused the rows with once it was.
	FixTitle    string
	FixSQLState string
}
