// Package prove runs the witness of each hole (package prove/witness) on a
// scratch PostgreSQL and records, per finding, what the server made of it:
// proven (PostgreSQL accepted both rows; with the fix applied to a second
// copy it refused them), refuted (PostgreSQL refused the second row: a
// false alarm), or not proven (and why). The scratch server is a database
// of its own on a server the user names (--scratch-dsn), or a throwaway
// cluster started from initdb and pg_ctl in a temporary directory
// (cluster.go), removed afterwards.
//
// Every finding runs in its own transaction, rolled back, on one
// connection: the copy of its table is created from the model, never read
// from or written to the database a run inspects. The proof covers the
// table's definition as modelled (columns, types, enums, domains, NOT
// NULLs, CHECKs, defaults, unique indexes and their predicates), not its
// foreign keys, triggers, row-level security or the application.
//
// It never prints; cmd wires it into lint and inspect.
package prove

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemcheck/idemcheck/audit"
)

// BugReportURL is where a refuted finding asks to be reported.
const BugReportURL = "https://github.com/idemcheck/idemcheck/issues"

// Scope is what a proof covers, said once per run.
const Scope = "each witness ran in a transaction rolled back, on a copy of its table made from the model; foreign keys, " +
	"triggers and row-level security are not modelled, so a proof covers the table's definition, not its triggers " +
	"or the application"

// Prove runs the witness of every finding that has one and is not
// suppressed, sets its Proof, and returns how long that took. A refuted
// finding gets a note asking for a bug report.
func (s *Server) Prove(ctx context.Context, findings []audit.Finding) time.Duration {
	start := time.Now()
	for i := range findings {
		f := &findings[i]
		if f.Witness == nil || f.Suppressed != nil {
			continue
		}
		f.Proof = s.proveOne(ctx, f.Witness)
		if f.Proof.Verdict == audit.Refuted {
			f.Notes = append(f.Notes, "idemcheck reported a hole that the table does not have: please report it at "+
				BugReportURL+" with this finding and its witness")
		}
	}
	return time.Since(start)
}

// outcome is what running the rows on a copy did.
type outcome struct {
	// failedRow is the row (0 or 1) PostgreSQL refused, -1 when it took
	// both; err is its error.
	failedRow int
	err       *pgconn.PgError
	// count is how many rows the copy holds after both, and dup whether
	// they are the duplicates the finding describes (the witness's
	// Verify).
	count int
	dup   bool
	// firstInIndex is, when the second row was refused, whether the first
	// is inside the index with the hole part NULL (the witness's InIndex).
	firstInIndex bool
}

// proveOne runs one witness on a first copy and, when PostgreSQL accepts
// both rows, its fix on a second.
func (s *Server) proveOne(ctx context.Context, w *audit.Witness) *audit.Proof {
	p := &audit.Proof{Server: s.Version}
	notProven := func(why string) *audit.Proof {
		p.Verdict, p.Message = audit.NotProven, "not proven: "+why
		return p
	}
	if ctx.Err() != nil {
		return notProven("interrupted before its witness ran")
	}
	// A copy that cannot be made settles it before the rows do.
	if _, err := copySteps(w, nil); err != nil {
		return notProven(err.Error())
	}
	if w.NotBuilt != "" {
		return notProven(w.NotBuilt)
	}
	out, err := s.runCopyWithExtensions(ctx, w, nil)
	if err != nil {
		return notProven(err.Error())
	}
	pg := "PostgreSQL " + s.Version
	switch {
	case out.failedRow == 0:
		return notProven(pg + " refused the first row, so the witness shows nothing: " + refusal(out.err))
	case out.failedRow == 1 && out.err.Code == "23505" && w.OnConflict:
		p.Message = fmt.Sprintf("proven: %s ran the statement twice and the conflict never fired: the second failed with 23505 on %s instead",
			pg, out.err.ConstraintName)
	case out.failedRow == 1 && out.err.Code == "23505" && out.err.ConstraintName == w.Index && !out.firstInIndex:
		return notProven(fmt.Sprintf("%s refused the second row on %s itself: the witness did not leave the first row inside the "+
			"index with the hole part NULL", pg, w.Index))
	case out.failedRow == 1 && out.err.Code == "23505":
		p.Verdict = audit.Refuted
		p.Message = fmt.Sprintf("refuted: %s refused the second row (23505 on %s): the table does stop these duplicates, so this "+
			"finding is a false alarm and does not count toward --fail-on", pg, out.err.ConstraintName)
		return p
	case out.failedRow == 1:
		return notProven(pg + " refused the second row for another reason: " + refusal(out.err))
	case w.OnConflict && out.count == 1:
		p.Verdict = audit.Refuted
		p.Message = fmt.Sprintf("refuted: %s ran the statement twice and the conflict fired (one row): the arbiter does stop the "+
			"repeat, so this finding is a false alarm and does not count toward --fail-on", pg)
		return p
	case !out.dup:
		return notProven(fmt.Sprintf("%s accepted the rows, but they are not the duplicates the finding describes (%d in the copy "+
			"inside the index's predicate with the hole part NULL and the other key parts equal)", pg, out.count))
	case w.OnConflict:
		p.Message = "proven: " + pg + " ran the statement twice and kept both rows: the conflict never fired"
	default:
		p.Message = "proven: " + pg + " accepted both rows"
	}
	p.Verdict = audit.Proven
	p.Message += s.proveFix(ctx, w, p)
	return p
}

// proveFix applies the finding's first fix (or, on a server too old for
// it, the first that runs there) to a second, empty copy and inserts the
// witness after it, and says what happened, as the tail of the proof's
// message.
func (s *Server) proveFix(ctx context.Context, w *audit.Witness, p *audit.Proof) string {
	fix := w.Fix
	if fix == nil {
		return "; the finding has no SQL fix to apply"
	}
	var instead string
	if fix.Needs > s.Major {
		first := fix
		fix = nil
		for _, alt := range w.Alternatives {
			if alt.Needs <= s.Major {
				fix = alt
				break
			}
		}
		if fix == nil {
			return fmt.Sprintf("; the fix (%s) needs PostgreSQL %d or later, so it was not applied on %s", first.Title, first.Needs, s.Version)
		}
		instead = fmt.Sprintf("; the first fix needs PostgreSQL %d or later, so the next, %s, was applied", first.Needs, fix.Title)
	}
	p.FixTitle = fix.Title
	with := "with the fix applied"
	if instead != "" {
		with = "with that one applied"
	}
	out, err := s.runCopyWithExtensions(ctx, w, fix)
	if err != nil {
		return instead + "; the fix could not be applied to a copy: " + err.Error()
	}
	row := func(i int) string {
		if w.OnConflict {
			return [2]string{"first statement", "second statement"}[i]
		}
		return [2]string{"first row", "second row"}[i]
	}
	switch {
	case out.failedRow >= 0 && isRefusal(out.err.Code):
		p.Fix, p.FixSQLState = audit.FixRefused, out.err.Code
		return fmt.Sprintf("%s; %s it refused them (%s on the %s)", instead, with, out.err.Code, row(out.failedRow))
	case out.failedRow >= 0:
		return fmt.Sprintf("%s; %s the %s failed for another reason: %s", instead, with, row(out.failedRow), refusal(out.err))
	case w.OnConflict && out.count == 1:
		p.Fix = audit.FixRefused
		return fmt.Sprintf("%s; %s the conflict fired on the second statement (one row)", instead, with)
	case out.count >= 2:
		p.Fix = audit.FixAccepted
		return fmt.Sprintf("%s; %s it still accepted both rows: the fix does not close the hole, a defect in "+
			"idemcheck's fix (please report it at %s)", instead, with, BugReportURL)
	}
	return fmt.Sprintf("%s; %s the copy holds %d rows", instead, with, out.count)
}

// isRefusal reports whether a SQLSTATE is a constraint refusing a row:
// unique (23505), NOT NULL (23502) or CHECK (23514).
func isRefusal(code string) bool { return code == "23505" || code == "23502" || code == "23514" }

// refusal says why PostgreSQL refused a row, in its words.
func refusal(e *pgconn.PgError) string {
	if e == nil {
		return "no error"
	}
	switch e.Code {
	case "23514":
		return fmt.Sprintf("CHECK %s refused it (23514)", e.ConstraintName)
	case "23502":
		return fmt.Sprintf("%s is NOT NULL (23502)", e.ColumnName)
	}
	return fmt.Sprintf("%s (%s)", e.Message, e.Code)
}

// runCopyWithExtensions is runCopy, creating in the scratch database (once
// per run, outside the finding's transaction) an extension whose type the
// copy needs.
func (s *Server) runCopyWithExtensions(ctx context.Context, w *audit.Witness, fix *audit.WitnessFix) (outcome, error) {
	for {
		out, err := s.runCopy(ctx, w, fix)
		var need *needExtension
		if !errors.As(err, &need) {
			return out, err
		}
		s.triedExtension[need.name] = true
		if _, err := s.conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+quoteIdent(need.name)); err != nil {
			return out, fmt.Errorf("%v: CREATE EXTENSION failed: %s", need, pgMessage(err))
		}
	}
}

// runCopy makes a copy of the witness's table in a transaction, applies
// fix when one is given, inserts both rows and reads back what the copy
// holds, then rolls back. The error is for a copy or fix PostgreSQL would
// not make; a row PostgreSQL refuses is in the outcome.
func (s *Server) runCopy(ctx context.Context, w *audit.Witness, fix *audit.WitnessFix) (outcome, error) {
	out := outcome{failedRow: -1}
	steps, err := copySteps(w, fix)
	if err != nil {
		return out, err
	}
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return out, fmt.Errorf("the scratch server: %v", err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if err := s.build(ctx, tx, steps); err != nil {
		return out, err
	}
	if fix != nil {
		for _, st := range fix.Statements {
			if _, err := tx.Exec(ctx, st, pgx.QueryExecModeSimpleProtocol); err != nil {
				return out, fmt.Errorf("%s: %s", oneLine(st), pgMessage(err))
			}
		}
	}
	for i, row := range w.Rows {
		if i == 1 {
			if _, err := tx.Exec(ctx, "SAVEPOINT idemcheck_rows"); err != nil {
				return out, fmt.Errorf("the scratch server: %s", pgMessage(err))
			}
		}
		if _, err := tx.Exec(ctx, row, pgx.QueryExecModeSimpleProtocol); err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				return out, fmt.Errorf("the scratch server: %v", err)
			}
			out.failedRow, out.err = i, pe
			if i == 1 && w.InIndex != "" {
				// Is the first row one the index lets through?
				if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT idemcheck_rows"); err == nil {
					_ = tx.QueryRow(ctx, w.InIndex).Scan(&out.firstInIndex)
				}
			}
			return out, nil
		}
	}
	// A deferred constraint checks only at commit, which never comes.
	if _, err := tx.Exec(ctx, "SET CONSTRAINTS ALL IMMEDIATE"); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			out.failedRow, out.err = 1, pe
			return out, nil
		}
		return out, fmt.Errorf("the scratch server: %v", err)
	}
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+w.Table).Scan(&out.count); err != nil {
		return out, fmt.Errorf("counting the rows of the copy: %s", pgMessage(err))
	}
	var dup *bool
	if err := tx.QueryRow(ctx, w.Verify).Scan(&dup); err != nil {
		return out, fmt.Errorf("checking the rows of the copy: %s", pgMessage(err))
	}
	out.dup = dup != nil && *dup
	return out, nil
}

// copySteps are the statements of the copy for one run: the first copy
// leaves out the CHECKs added NOT VALID (the rows stand for older rows),
// the second has those its fix names. A part the model could not render
// stops the proof.
func copySteps(w *audit.Witness, fix *audit.WitnessFix) ([]audit.SetupStep, error) {
	var steps []audit.SetupStep
	for _, st := range w.Setup {
		if st.NotValid != "" && !(fix != nil && mentions(fix.Statements, st.NotValid)) {
			continue
		}
		if strings.TrimSpace(st.SQL) == "" {
			return nil, fmt.Errorf("%s not modelled", st.Part)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func mentions(statements []string, name string) bool {
	for _, st := range statements {
		if strings.Contains(st, name) {
			return true
		}
	}
	return false
}

// build runs the copy's statements: all at once, and when PostgreSQL
// refuses one, again one by one in a savepoint to name the part it
// refused.
func (s *Server) build(ctx context.Context, tx pgx.Tx, steps []audit.SetupStep) error {
	all := make([]string, len(steps))
	for i, st := range steps {
		all[i] = st.SQL
	}
	// The savepoint is a statement of its own: one that shares a query
	// string with a statement that fails goes with it.
	if _, err := tx.Exec(ctx, "SAVEPOINT idemcheck_copy"); err != nil {
		return fmt.Errorf("the scratch server: %s", pgMessage(err))
	}
	if _, err := tx.Exec(ctx, strings.Join(all, ";\n"), pgx.QueryExecModeSimpleProtocol); err == nil {
		return nil
	}
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT idemcheck_copy"); err != nil {
		return fmt.Errorf("the scratch server: %s", pgMessage(err))
	}
	for _, st := range steps {
		if _, err := tx.Exec(ctx, st.SQL, pgx.QueryExecModeSimpleProtocol); err != nil {
			if ext := extensionFor(err); ext != "" && !s.triedExtension[ext] {
				return &needExtension{name: ext}
			}
			if strings.HasPrefix(st.Part, "CHECK ") {
				return fmt.Errorf("%s not modelled: PostgreSQL refused it on the copy: %s", st.Part, pgMessage(err))
			}
			return fmt.Errorf("the copy of the table could not be made: PostgreSQL refused %s: %s", st.Part, pgMessage(err))
		}
	}
	return nil
}

// extensionTypes are types of PostgreSQL's own extensions that a copy
// gets by creating the extension in the scratch database.
var extensionTypes = map[string]string{
	"citext": "citext", "hstore": "hstore", "ltree": "ltree", "lquery": "ltree", "cube": "cube",
	"ean13": "isn", "isbn": "isn", "issn": "isn", "upc": "isn", "isbn13": "isn", "issn13": "isn",
}

// extensionFunctions are functions of PostgreSQL's own extensions that a
// default may call: gen_random_uuid is built in only from 13, pgcrypto
// has it before.
var extensionFunctions = map[string]string{
	"gen_random_uuid": "pgcrypto", "digest": "pgcrypto", "gen_salt": "pgcrypto", "crypt": "pgcrypto",
	"uuid_generate_v1": "uuid-ossp", "uuid_generate_v1mc": "uuid-ossp", "uuid_generate_v4": "uuid-ossp",
}

// extensionFor names the extension that would give the type (42704) or
// the function (42883) an error says does not exist, "" for any other
// error.
func extensionFor(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ""
	}
	var lead string
	var known map[string]string
	switch pe.Code {
	case "42704":
		lead, known = `type "`, extensionTypes
	case "42883":
		lead, known = "function ", extensionFunctions
	default:
		return ""
	}
	_, rest, ok := strings.Cut(pe.Message, lead)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	name, _, _ = strings.Cut(name, "(")
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return known[name]
}

// needExtension is a copy that needs an extension the scratch database
// does not have yet.
type needExtension struct{ name string }

func (e *needExtension) Error() string {
	return "the copy needs the extension " + e.name + ", which the scratch server does not have"
}

// pgMessage is an error as PostgreSQL words it, with its SQLSTATE.
func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message + " (" + pe.Code + ")"
	}
	return err.Error()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
