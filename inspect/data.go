package inspect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// DataCheck asks how a hole in an index has been used: Parts are the key
// parts that may be NULL (as Index.PartNames writes them).
type DataCheck struct {
	Table *catalog.Table
	Index *catalog.Index
	Parts []string
}

// Count is one number a data check found. Skipped says why the query did not
// finish (it ran out of time, or the role may not read the table); N is then
// meaningless.
type Count struct {
	N       int64
	Skipped string
}

// PartData is what the data checks found for one nullable key part.
type PartData struct {
	Part string
	// NullRows counts the rows the index covers (its predicate holds) that
	// have NULL in the part: zero means the part can be made NOT NULL today.
	NullRows Count
	// CollidingGroups counts groups of such rows that agree on every other
	// key part: duplicates the hole let in, and rows that would make a NULLS
	// NOT DISTINCT (or partial split) index fail to build.
	CollidingGroups Count
	// Rows counts the rows the index covers, the same for every part of a
	// check: no NULL among at least 1,000 of them is the evidence that
	// makes NOT NULL the first fix.
	Rows Count
}

// Progress is told before each data query runs (done of total finished).
type Progress func(done, total int, object string)

// CheckData runs the data checks. Each count is its own read-only
// transaction with the session's statement and lock timeouts, in one round
// trip, so that the locks it takes (the table and its indexes) are released
// before the next count: the session holds a small number of locks at any
// moment, whatever the number of tables. A count that fails is skipped and
// the checks go on; a table found locked by another session is given up on
// once, and its other counts are skipped without waiting again.
//
// The error is a failure that ends the checks: a lost connection, the
// run's deadline, a server that stopped answering. The counts made before
// it are kept; those not made are skipped, saying why.
func (s *Session) CheckData(ctx context.Context, snap *Snapshot, checks []DataCheck, progress Progress) (Checked, error) {
	total := 0
	for _, c := range checks {
		total += 2*len(c.Parts) + 1
	}
	out := make([][]PartData, len(checks))
	r := &dataRun{s: s, locked: map[*catalog.Table]string{}}
	done := 0
	for i, c := range checks {
		object := c.Table.QualifiedName() + "." + c.Index.Name
		var rows *Count
		for _, part := range c.Parts {
			q, ok := newDataQuery(snap, c, part)
			if !ok {
				continue
			}
			if rows == nil {
				tell(progress, done, total, object)
				n := r.count(ctx, q.coveredRows(), c.Table)
				rows = &n
				done++
			}
			pd := PartData{Part: part, Rows: *rows}
			tell(progress, done, total, object)
			pd.NullRows = r.count(ctx, q.nullRows(), c.Table)
			done++
			tell(progress, done, total, object)
			pd.CollidingGroups = r.count(ctx, q.collidingGroups(), c.Table)
			done++
			out[i] = append(out[i], pd)
		}
	}
	tell(progress, done, total, "")
	res := Checked{Parts: out, Locked: r.order}
	if r.stopped != nil {
		return res, r.stopped
	}
	return res, nil
}

// Checked is what CheckData found: the counts, one slice per check, and
// why each table another session held locked was skipped, once per table
// in the order they were met.
type Checked struct {
	Parts  [][]PartData
	Locked []string
}

// dataRun is the state of one CheckData: the tables found locked, and the
// failure that stopped the counts.
type dataRun struct {
	s       *Session
	locked  map[*catalog.Table]string
	order   []string
	stopped *SessionError
}

// count runs one count unless the checks have stopped or its table is
// known to be locked.
func (r *dataRun) count(ctx context.Context, query string, t *catalog.Table) Count {
	if r.stopped != nil {
		return Count{Skipped: "not counted: " + r.stopped.Reason + stateSuffix(r.stopped.SQLState)}
	}
	if why, ok := r.locked[t]; ok {
		return Count{Skipped: why}
	}
	c, err := r.s.count(ctx, query, t)
	if err != nil {
		r.stopped = err
		return Count{Skipped: "not counted: " + err.Reason + stateSuffix(err.SQLState)}
	}
	if c.locked {
		r.locked[t] = c.Skipped
		r.order = append(r.order, c.Skipped)
	}
	return c.Count
}

func stateSuffix(code string) string {
	if code == "" {
		return ""
	}
	return " (SQLSTATE " + code + ")"
}

func tell(p Progress, done, total int, object string) {
	if p != nil {
		p(done, total, object)
	}
}

// dataQuery holds the pieces of SQL for one part of one index, in the
// server's own text.
type dataQuery struct {
	from      string // the relation, ONLY for a table that may have children
	predicate string
	part      string
	others    []string
}

// newDataQuery finds the part in the index and builds the query pieces.
func newDataQuery(snap *Snapshot, c DataCheck, part string) (dataQuery, bool) {
	text := snap.IndexText[c.Index]
	if text == nil {
		return dataQuery{}, false
	}
	at := -1
	for k, name := range c.Index.PartNames() {
		if name == part || (k < len(text.Parts) && text.Parts[k] == part) {
			at = k
			break
		}
	}
	if at < 0 || at >= len(text.Parts) {
		return dataQuery{}, false
	}
	q := dataQuery{
		from:      pgx.Identifier{c.Table.Schema, c.Table.Name}.Sanitize(),
		predicate: text.Predicate,
		part:      text.Parts[at],
	}
	// A plain table's index covers only its own rows, not those of tables
	// that INHERIT from it; a partitioned index covers every partition.
	if c.Table.Kind != catalog.Partitioned {
		q.from = "ONLY " + q.from
	}
	for k, p := range text.Parts {
		if k != at {
			q.others = append(q.others, "("+p+")")
		}
	}
	return q, true
}

// nullRowsSQL counts the rows an index covers with NULL in one key part.
const nullRowsSQL = `SELECT count(*) FROM %s WHERE %s`

// collidingGroupsSQL counts groups of those rows that agree on every other
// key part: the precheck query of the fixes, counted.
const collidingGroupsSQL = `SELECT count(*) FROM (SELECT 1 FROM %s WHERE %s %s HAVING count(*) > 1) AS colliding`

func (q dataQuery) where() string {
	cond := "(" + q.part + ") IS NULL"
	if q.predicate != "" {
		cond = "(" + q.predicate + ") AND " + cond
	}
	return cond
}

// coveredRowsSQL counts the rows an index covers.
const coveredRowsSQL = `SELECT count(*) FROM %s%s`

func (q dataQuery) coveredRows() string {
	where := ""
	if q.predicate != "" {
		where = " WHERE " + q.predicate
	}
	return fmt.Sprintf(coveredRowsSQL, q.from, where)
}

func (q dataQuery) nullRows() string {
	return fmt.Sprintf(nullRowsSQL, q.from, q.where())
}

func (q dataQuery) collidingGroups() string {
	group := ""
	if len(q.others) > 0 {
		group = "GROUP BY " + strings.Join(q.others, ", ")
	}
	return fmt.Sprintf(collidingGroupsSQL, q.from, q.where(), group)
}

// ownTransactionSQL runs one query (a count, the pg_locks read) in a
// read-only transaction of its own, with the timeouts: one round trip when
// it succeeds. READ COMMITTED whatever the server's default, so that no
// snapshot outlives the query.
const ownTransactionSQL = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY; %s; %s; ROLLBACK"

// counted is a count, and whether it was skipped because the table is
// locked by another session.
type counted struct {
	Count
	locked bool
}

// count runs one counting query. A query the server refuses becomes a
// skipped count; the error is a failure that ends the checks (the
// connection lost, no answer, the deadline).
func (s *Session) count(ctx context.Context, query string, t *catalog.Table) (counted, *SessionError) {
	if s.lost != nil {
		return counted{}, s.lost
	}
	doing := "counting rows of " + t.DisplayName() + " (--data)"
	s.trips.n.Add(1)
	x := s.exchange(ctx)
	results, err := s.conn.PgConn().Exec(x.ctx, fmt.Sprintf(ownTransactionSQL, s.timeouts(), query)).ReadAll()
	cause := x.cause()
	x.done()
	if err == nil {
		for _, r := range results {
			if len(r.Rows) == 1 && len(r.Rows[0]) == 1 {
				n, perr := strconv.ParseInt(string(r.Rows[0][0]), 10, 64)
				if perr == nil {
					return counted{Count: Count{N: n}}, nil
				}
			}
		}
		return counted{Count: Count{Skipped: "the count query returned no number"}}, nil
	}
	fail := s.fail(doing, err, cause)
	if fail.Lost || cause != nil {
		return counted{}, fail
	}
	if rerr := s.exec(ctx, "ending a count's transaction", "ROLLBACK"); rerr != nil {
		var se *SessionError
		if errors.As(rerr, &se) && se.Lost {
			return counted{}, se
		}
		return counted{Count: Count{Skipped: rerr.Error()}}, nil
	}
	if fail.SQLState == "55P03" { // lock_not_available: lock_timeout
		return counted{Count: Count{Skipped: s.lockedReason(ctx, t)}, locked: true}, nil
	}
	return counted{Count: Count{Skipped: s.skipReason(fail, t)}}, nil
}

// skipReason says in a few words why a data query did not finish.
func (s *Session) skipReason(fail *SessionError, t *catalog.Table) string {
	switch fail.SQLState {
	case "57014": // query_canceled: statement_timeout
		return fmt.Sprintf("timed out after %s (--timeout)", s.timeout)
	case "42501": // insufficient_privilege
		return fmt.Sprintf("no SELECT privilege on %s", t.DisplayName())
	}
	return fail.Reason + stateSuffix(fail.SQLState)
}

// lockHoldersSQL finds the sessions that hold, or queue for, the one lock
// that keeps a count out of a table: ACCESS EXCLUSIVE, on the table, one of
// its partitions, or an index of either (the planner opens every index).
// %s is the table's name as a string literal.
const lockHoldersSQL = `WITH t AS (SELECT to_regclass(%s) AS rel),
  rels AS (SELECT rel FROM t UNION SELECT p.relid FROM t, pg_partition_tree(t.rel) p),
  locked AS (SELECT rel FROM rels UNION ALL SELECT i.indexrelid FROM pg_index i JOIN rels ON i.indrelid = rels.rel)
SELECT l.mode, l.granted, l.pid FROM pg_locks l
WHERE l.locktype = 'relation' AND l.mode = 'AccessExclusiveLock' AND l.pid <> pg_backend_pid()
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.relation IN (SELECT rel FROM locked)
ORDER BY l.granted DESC, l.pid
LIMIT 1`

// lockedReason says who keeps t locked, once per table: the lock's mode
// and the holder's pid, read from pg_locks right after the wait gave up.
func (s *Session) lockedReason(ctx context.Context, t *catalog.Table) string {
	base := fmt.Sprintf("%s is locked by another session", t.DisplayName())
	waited := fmt.Sprintf("counts skipped after waiting %s (--lock-timeout)", s.lockTimeout)
	name, err := s.conn.PgConn().EscapeString(pgx.Identifier{t.Schema, t.Name}.Sanitize())
	if err != nil || s.lost != nil {
		return base + ": " + waited
	}
	s.trips.n.Add(1)
	x := s.exchange(ctx)
	sql := fmt.Sprintf(ownTransactionSQL, s.timeouts(), fmt.Sprintf(lockHoldersSQL, "'"+name+"'"))
	results, err := s.conn.PgConn().Exec(x.ctx, sql).ReadAll()
	cause := x.cause()
	x.done()
	if err != nil {
		if fail := s.fail("reading pg_locks for "+t.DisplayName(), err, cause); !fail.Lost {
			_ = s.exec(ctx, "ending a transaction", "ROLLBACK")
		}
		return base + ": " + waited
	}
	for _, r := range results {
		if len(r.Rows) == 1 && len(r.Rows[0]) == 3 {
			mode, granted, pid := lockModeName(string(r.Rows[0][0])), string(r.Rows[0][1]) == "t", string(r.Rows[0][2])
			if granted {
				return fmt.Sprintf("%s (%s, pid %s): %s", base, mode, pid, waited)
			}
			return fmt.Sprintf("%s is waited on by another session asking for %s (pid %s), and the count queued behind it: %s", t.DisplayName(), mode, pid, waited)
		}
	}
	return fmt.Sprintf("%s was locked by another session (the lock was gone when pg_locks was read): %s", t.DisplayName(), waited)
}

// lockModeName writes pg_locks' mode as the SQL that takes it does:
// AccessExclusiveLock is ACCESS EXCLUSIVE.
func lockModeName(mode string) string {
	mode = strings.TrimSuffix(mode, "Lock")
	var b strings.Builder
	for i, r := range mode {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}
