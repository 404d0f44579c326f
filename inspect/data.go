package inspect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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

// CheckData runs the data checks, each query under the session's timeout
// and inside a savepoint, so that one timed-out query is reported as skipped
// and the transaction goes on. The result has one slice per check.
func (s *Session) CheckData(ctx context.Context, snap *Snapshot, checks []DataCheck, progress Progress) [][]PartData {
	total := 0
	for _, c := range checks {
		total += 2*len(c.Parts) + 1
	}
	out := make([][]PartData, len(checks))
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
				n := s.count(ctx, q.coveredRows(), c.Table)
				rows = &n
				done++
			}
			pd := PartData{Part: part, Rows: *rows}
			tell(progress, done, total, object)
			pd.NullRows = s.count(ctx, q.nullRows(), c.Table)
			done++
			tell(progress, done, total, object)
			pd.CollidingGroups = s.count(ctx, q.collidingGroups(), c.Table)
			done++
			out[i] = append(out[i], pd)
		}
	}
	tell(progress, done, total, "")
	return out
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

// countInSavepointSQL runs a count so that its failure rolls back only the
// savepoint: on success it is one round trip.
const (
	savepointSQL        = "SAVEPOINT idemcheck_data"
	releaseSavepointSQL = "RELEASE SAVEPOINT idemcheck_data"
	rollbackToSQL       = "ROLLBACK TO SAVEPOINT idemcheck_data"
)

// count runs one counting query; a failure becomes a skipped count.
func (s *Session) count(ctx context.Context, query string, t *catalog.Table) Count {
	s.trips.n.Add(1)
	results, err := s.conn.PgConn().Exec(ctx, savepointSQL+"; "+query+"; "+releaseSavepointSQL).ReadAll()
	if err == nil {
		for _, r := range results {
			if len(r.Rows) == 1 && len(r.Rows[0]) == 1 {
				n, perr := strconv.ParseInt(string(r.Rows[0][0]), 10, 64)
				if perr == nil {
					return Count{N: n}
				}
			}
		}
		return Count{Skipped: "the count query returned no number"}
	}
	s.trips.n.Add(1)
	if _, rerr := s.conn.PgConn().Exec(ctx, rollbackToSQL).ReadAll(); rerr != nil {
		return Count{Skipped: s.scrub.clean(rerr.Error())}
	}
	return Count{Skipped: s.skipReason(err, t)}
}

// skipReason says in a few words why a data query did not finish.
func (s *Session) skipReason(err error, t *catalog.Table) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57014": // query_canceled: statement_timeout
			return fmt.Sprintf("timed out after %s (--timeout)", s.timeout)
		case "55P03": // lock_not_available: lock_timeout
			return fmt.Sprintf("waited more than %s for a lock on %s (--timeout)", s.timeout, t.DisplayName())
		case "42501": // insufficient_privilege
			return fmt.Sprintf("no SELECT privilege on %s", t.DisplayName())
		}
		return s.scrub.clean(pgErr.Message)
	}
	return s.scrub.clean(err.Error())
}
