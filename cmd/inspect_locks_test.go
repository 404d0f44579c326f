package cmd

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// lockBound is the most locks inspect's session may hold at once while
// --data counts, whatever the number of tables (issue 23: the old single
// transaction held 1,157 on 400 tables and 12,032 on 4,000).
const lockBound = 20

// manyTables creates n tables, each with a finding on two unique indexes
// with a nullable part and a few rows, in batches, and returns the DSN.
// The database goes with the test.
func manyTables(t *testing.T, n int) string {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	const batch = 250
	for from := 0; from < n; from += batch {
		var b strings.Builder
		b.WriteString("BEGIN;")
		for i := from; i < min(from+batch, n); i++ {
			fmt.Fprintf(&b, `CREATE TABLE t%[1]d (org int NOT NULL, sub text, tx text);
CREATE UNIQUE INDEX t%[1]d_sub ON t%[1]d (org, sub);
CREATE UNIQUE INDEX t%[1]d_tx ON t%[1]d (org, tx);
INSERT INTO t%[1]d VALUES (1, NULL, 'a'), (1, NULL, 'b'), (2, 'x', NULL);`, i)
		}
		b.WriteString("COMMIT;")
		pgtest.Exec(t, dsn, b.String())
	}
	return dsn
}

// lockPeaks is the most locks inspect's backend held at once: while it
// counted (a lock on a table of public was among them) and otherwise (the
// catalog read, the system catalogs only).
type lockPeaks struct {
	counting, other, samples, countingSamples int
}

// sampleLocks polls pg_locks for the backends named app until stop closes.
func sampleLocks(t *testing.T, dsn, app string, stop <-chan struct{}) lockPeaks {
	t.Helper()
	conn := connectDSN(t, dsn)
	ctx := context.Background()
	var p lockPeaks
	for {
		select {
		case <-stop:
			return p
		default:
		}
		var all, user int
		err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE c.relnamespace = 'public'::regnamespace)
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid LEFT JOIN pg_class c ON c.oid = l.relation
WHERE a.application_name = $1`, app).Scan(&all, &user)
		if err != nil {
			t.Errorf("sampling pg_locks: %v", err)
			return p
		}
		p.samples++
		if user > 0 {
			p.countingSamples++
			p.counting = max(p.counting, all)
		} else {
			p.other = max(p.other, all)
		}
	}
}

// inspectLockPeaks runs inspect --data on dsn while sampling its locks.
func inspectLockPeaks(t *testing.T, dsn string) lockPeaks {
	t.Helper()
	app := fmt.Sprintf("idemcheck_locks_%d", os.Getpid())
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	stop := make(chan struct{})
	var peaks lockPeaks
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		peaks = sampleLocks(t, dsn, app, stop)
	}()
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", u.String(), "--data", "--format", "json")
	close(stop)
	wg.Wait()
	if code != ExitOK || !strings.Contains(out, `"null_rows": 2`) {
		t.Fatalf("exit %d, want 0 with counts\nstderr:\n%s", code, errOut)
	}
	t.Logf("%d samples, %d while counting: at most %d locks while counting, %d otherwise", peaks.samples, peaks.countingSamples, peaks.counting, peaks.other)
	if peaks.countingSamples == 0 {
		t.Fatal("no sample caught a count: the bound was not measured")
	}
	return peaks
}

// The locks inspect --data holds stay under lockBound and do not grow with
// the number of tables: 400 tables and 4,000 (two indexes each, every one a
// finding) give the same peaks. The 4,000 tables take about 30 s to build
// and count on the 2-core CI machine, so -short leaves that case out.
func TestInspectDataLockFootprint(t *testing.T) {
	small := inspectLockPeaks(t, manyTables(t, 400))
	if small.counting >= lockBound {
		t.Errorf("400 tables: %d locks held at once while counting, want under %d", small.counting, lockBound)
	}
	if testing.Short() {
		t.Skip("the 4,000-table case runs without -short (as CI does)")
	}
	big := inspectLockPeaks(t, manyTables(t, 4000))
	if big.counting >= lockBound {
		t.Errorf("4,000 tables: %d locks held at once while counting, want under %d", big.counting, lockBound)
	}
	// The catalog read locks system catalogs only, a fixed set (32 on
	// PostgreSQL 15); it is fast, so a sample may miss its peak.
	for _, p := range []lockPeaks{small, big} {
		if p.other > catalogLockBound {
			t.Errorf("outside the counts: %d locks at once, want at most %d (the system catalogs)", p.other, catalogLockBound)
		}
	}
}

// catalogLockBound is the most locks the catalog read may take: the
// system catalogs its queries read and their indexes.
const catalogLockBound = 40
