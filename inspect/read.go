package inspect

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// Snapshot is what ReadCatalog read: the catalog, and the server's own text
// of each index's expressions, which the data checks put back into SQL
// exactly as the server printed them.
type Snapshot struct {
	Catalog *catalog.Catalog
	// IndexText holds the server's text for each index read.
	IndexText map[*catalog.Index]*IndexText
	// Tables counts the tables read (after the filter); Indexes likewise.
	Tables, Indexes int
	// Unmatched are the filter's patterns that matched nothing.
	Unmatched []FilterMiss
}

// IndexText is an index as pg_get_indexdef and pg_get_expr print it.
type IndexText struct {
	// Parts are the key parts (column names quoted as needed, or
	// expressions), in order.
	Parts []string
	// Predicate is the WHERE clause, empty for a full index.
	Predicate string
}

// builder collects rows from the catalog queries into a catalog.
type builder struct {
	cat     *catalog.Catalog
	filter  *filterUse
	version int
	tables  map[int64]*catalog.Table
	// columns maps a table's oid and attnum to the column name, for index
	// keys, which pg_index stores as attribute numbers.
	columns map[int64]map[int16]string
	// expressions holds expression key parts by index oid and column
	// number (1-based), read before the indexes that use them.
	expressions map[int64]map[int]string
	snap        *Snapshot
}

// catalogQuery is one query of the batch and the function that scans it.
type catalogQuery struct {
	name string
	sql  string
	scan func(pgx.Rows, *builder) error
}

// catalogQueries lists the queries in the order they must be scanned:
// tables before the columns, checks and indexes that refer to them, and
// index expressions before the indexes.
func catalogQueries(version int) []catalogQuery {
	return []catalogQuery{
		{"schemas", schemasQuery, scanSchemas},
		{"search path", searchPathQuery, scanSearchPath},
		{"domains", domainsQuery, scanDomains},
		{"enums", enumsQuery, scanEnums},
		{"tables", tablesQuery, scanTables},
		{"columns", columnsQuery, scanColumns},
		{"check constraints", checksQuery, scanChecks},
		{"foreign keys", foreignKeysQuery, scanForeignKeys},
		{"index expressions", indexExpressionsQuery, scanIndexExpressions},
		{"indexes", indexesQuery(version), scanIndexes},
	}
}

// ReadCatalog reads schemas, tables, materialized views, columns, CHECK and
// FOREIGN KEY constraints and indexes in one read-only transaction: BEGIN
// with its timeouts, then one pipelined batch that ends the transaction, so
// that the locks on the system catalogs are held only while they are read.
// Two round trips, whatever the size of the database.
func (s *Session) ReadCatalog(ctx context.Context, f Filter) (*Snapshot, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	b := &builder{
		cat:         &catalog.Catalog{Schemas: map[string]*catalog.Schema{}, ServerVersion: s.ServerVersion},
		filter:      newFilterUse(f),
		version:     s.ServerVersion,
		tables:      map[int64]*catalog.Table{},
		columns:     map[int64]map[int16]string{},
		expressions: map[int64]map[int]string{},
	}
	b.snap = &Snapshot{Catalog: b.cat, IndexText: map[*catalog.Index]*IndexText{}}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	queries := catalogQueries(s.ServerVersion)
	batch := &pgx.Batch{}
	for _, q := range queries {
		batch.Queue(q.sql)
	}
	batch.Queue("ROLLBACK")
	if err := s.readBatch(ctx, batch, queries, b); err != nil {
		return nil, err
	}
	b.snap.Unmatched = b.filter.misses()
	return b.snap, nil
}

// readBatch sends the catalog batch and scans its results, each wait for a
// result bounded by the timeout. After a failure the transaction is rolled
// back, when the connection survived it.
func (s *Session) readBatch(ctx context.Context, batch *pgx.Batch, queries []catalogQuery, b *builder) error {
	x := s.exchange(ctx)
	defer x.done()
	results := s.conn.SendBatch(x.ctx, batch)
	doing := "reading the catalog"
	err := func() error {
		for _, q := range queries {
			doing = "reading the catalog (" + q.name + ")"
			if err := readOne(results, q, b); err != nil {
				return err
			}
			x.alive()
		}
		doing = "ending the catalog's transaction"
		_, err := results.Exec()
		return err
	}()
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		return nil
	}
	fail := s.fail(doing, err, x.cause())
	if !fail.Lost {
		_ = s.exec(ctx, "ending the catalog's transaction", "ROLLBACK")
	}
	return fail
}

func readOne(results pgx.BatchResults, q catalogQuery, b *builder) error {
	rows, err := results.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := q.scan(rows, b); err != nil {
			return fmt.Errorf("scanning a row: %w", err)
		}
	}
	return rows.Err()
}

// QueryNames names the catalog queries ReadCatalog sends, in order, for -v.
func QueryNames(version int) []string {
	var out []string
	for _, q := range catalogQueries(version) {
		out = append(out, q.name)
	}
	return out
}
