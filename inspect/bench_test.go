package inspect

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// benchDatabase is kept between runs: building it takes minutes.
const benchDatabase = "idemcheck_bench_10k"

// benchTables and the index counts are the sizes: 10,000 tables,
// 30,000 indexes, a third of them unique, a tenth of those with a hole.
const benchTables = 10000

// benchBuildSQL builds the tables in chunks, committing between them: one
// transaction holding 40,000 relation locks would exhaust the lock table.
// Every table has one unique index, on (a, b) with nullable b (a hole) for
// every tenth table and on (a, c) otherwise, and two plain indexes.
const benchBuildSQL = `
DO $$
BEGIN
  FOR i IN 1..10000 LOOP
    EXECUTE format('CREATE TABLE IF NOT EXISTS bench_%s (id bigint NOT NULL, a bigint NOT NULL, b text, c text NOT NULL)', i);
    IF i % 10 = 0 THEN
      EXECUTE format('CREATE UNIQUE INDEX IF NOT EXISTS bench_%s_key ON bench_%s (a, b)', i, i);
    ELSE
      EXECUTE format('CREATE UNIQUE INDEX IF NOT EXISTS bench_%s_key ON bench_%s (a, c)', i, i);
    END IF;
    EXECUTE format('CREATE INDEX IF NOT EXISTS bench_%s_b ON bench_%s (b)', i, i);
    EXECUTE format('CREATE INDEX IF NOT EXISTS bench_%s_c ON bench_%s (c)', i, i);
    IF i % 250 = 0 THEN
      COMMIT;
    END IF;
  END LOOP;
END $$`

// benchDSN returns the benchmark database, building it when it is missing
// or incomplete.
func benchDSN(b *testing.B) string {
	admin := adminConn(b)
	ctx := context.Background()
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", benchDatabase).Scan(&exists); err != nil {
		b.Fatal(err)
	}
	if !exists {
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+benchDatabase); err != nil {
			b.Fatal(err)
		}
	}
	dsn := withDatabase(b, testDSN(), benchDatabase)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var indexes int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname LIKE 'bench\\_%'").Scan(&indexes); err != nil {
		b.Fatal(err)
	}
	if indexes < 3*benchTables {
		start := time.Now()
		if _, err := conn.Exec(ctx, benchBuildSQL, pgx.QueryExecModeSimpleProtocol); err != nil {
			b.Fatalf("building %s: %v", benchDatabase, err)
		}
		b.Logf("built %s in %s", benchDatabase, time.Since(start).Round(time.Second))
	}
	return dsn
}

// BenchmarkInspect reads the whole generated catalog (connection, read-only
// transaction, the batch, expression parsing, building the model) and
// reports the round trips and, for comparison, the time of the bare catalog
// queries with their rows read and thrown away.
func BenchmarkInspect(b *testing.B) {
	dsn := benchDSN(b)
	ctx := context.Background()
	var trips, tables, indexes int
	for b.Loop() {
		s, err := Open(ctx, Config{DSN: dsn, Timeout: time.Minute, Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		snap, err := s.ReadCatalog(ctx, Filter{})
		if err != nil {
			b.Fatal(err)
		}
		trips, tables, indexes = s.RoundTrips(), snap.Tables, snap.Indexes
		s.Close(ctx)
	}
	if tables != benchTables || indexes != 3*benchTables {
		b.Fatalf("read %d tables and %d indexes, want %d and %d", tables, indexes, benchTables, 3*benchTables)
	}
	b.ReportMetric(float64(trips), "round-trips")
	b.ReportMetric(bareQueryTime(b, dsn).Seconds()*1000, "bare-query-ms")
}

// bareQueryTime runs the same catalog batch once and drains the rows without
// building anything: what the server and the wire cost on their own.
func bareQueryTime(b *testing.B, dsn string) time.Duration {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	version, err := serverVersion(conn.PgConn())
	if err != nil {
		b.Fatal(err)
	}
	batch := &pgx.Batch{}
	for _, q := range catalogQueries(version) {
		batch.Queue(q.sql)
	}
	start := time.Now()
	results := conn.SendBatch(ctx, batch)
	for range batch.QueuedQueries {
		rows, err := results.Query()
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			_ = rows.RawValues()
		}
		if rows.Err() != nil {
			b.Fatal(rows.Err())
		}
	}
	if err := results.Close(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
