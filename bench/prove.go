package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// proveHoles is how many holes corpus P holds: one per table.
const proveHoles = 100

// The targets for --prove.
const (
	maxClusterStart = 5 * time.Second
	maxPerFinding   = 20 * time.Millisecond
)

// proveResult is lint of corpus P without --prove, with it on a scratch
// database, and with it on a throwaway cluster.
type proveResult struct {
	findings int
	plain    time.Duration // best lint wall time without --prove
	onDSN    time.Duration // best lint --prove --scratch-dsn wall time
	// perFinding is the best run's witness time over its findings (the
	// server already up); clusterStart the best initdb + pg_ctl start, and
	// onCluster the best wall time of lint --prove with its own cluster.
	perFinding   time.Duration
	clusterStart time.Duration
	onCluster    time.Duration
	version      string
}

// generateHoles writes corpus P: tables of the shapes real holes take (a
// nullable scope beside an identity, a nullable reference in a link row,
// soft deletes, CHECKs, enums, defaults, domains), one hole each.
func generateHoles(dir string) (string, error) {
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	b.WriteString("CREATE TYPE state AS ENUM ('pending', 'done', 'failed');\n")
	b.WriteString("CREATE DOMAIN amount AS bigint CHECK (VALUE >= 0);\n")
	for i := 0; i < proveHoles; i++ {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "CREATE TABLE claims_%d (id bigserial PRIMARY KEY, account_id bigint NOT NULL, kind text NOT NULL "+
				"CHECK (kind IN ('charge', 'refund')), address text NOT NULL, namespace text, created_at timestamptz NOT NULL DEFAULT now());\n", i)
			fmt.Fprintf(&b, "CREATE UNIQUE INDEX claims_%d_key ON claims_%d (account_id, kind, address, namespace);\n", i, i)
		case 1:
			fmt.Fprintf(&b, "CREATE TABLE events_%d (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), organization_id uuid NOT NULL, "+
				"subscription_id text, transaction_id text NOT NULL, state state NOT NULL DEFAULT 'pending', total amount NOT NULL);\n", i)
			fmt.Fprintf(&b, "CREATE UNIQUE INDEX events_%d_transaction ON events_%d (organization_id, subscription_id, transaction_id);\n", i, i)
		case 2:
			fmt.Fprintf(&b, "CREATE TABLE seats_%d (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, plan_id bigint NOT NULL, "+
				"email text NOT NULL CHECK (length(email) > 3), deleted_at timestamptz);\n", i)
			fmt.Fprintf(&b, "CREATE UNIQUE INDEX seats_%d_email ON seats_%d (plan_id, email, deleted_at);\n", i, i)
		default:
			fmt.Fprintf(&b, "CREATE TABLE refunds_%d (charge_id bigint NOT NULL, reason text NOT NULL, amount numeric(12,2) NOT NULL "+
				"CHECK (amount > 0), UNIQUE (charge_id, reason));\n", i)
			fmt.Fprintf(&b, "ALTER TABLE refunds_%d ALTER COLUMN reason DROP NOT NULL;\n", i)
		}
	}
	path := filepath.Join(dir, "P", "holes.sql")
	return path, writeFile(path, b.String())
}

// proveDocument is the part of lint's JSON the measurement reads.
type proveDocument struct {
	Findings []struct {
		Proof *struct {
			Verdict string `json:"verdict"`
		} `json:"proof"`
	} `json:"findings"`
	Prove *struct {
		ServerVersion  string  `json:"server_version"`
		Proven         int     `json:"proven"`
		StartedSeconds float64 `json:"started_seconds"`
		ElapsedSeconds float64 `json:"elapsed_seconds"`
	} `json:"prove"`
}

// lintJSON runs lint with JSON output and returns its wall time and
// document.
func lintJSON(bin string, env []string, args ...string) (time.Duration, *proveDocument, error) {
	cmd := exec.Command(bin, append([]string{"lint", "--format", "json", "--fail-on", "none"}, args...)...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return 0, nil, fmt.Errorf("idemcheck %s: %v\n%s", strings.Join(args, " "), err, firstLines(errOut.String(), 10))
	}
	var doc proveDocument
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		return 0, nil, err
	}
	return wall, &doc, nil
}

// measureProve lints corpus P without --prove, with --prove on the
// scratch server -dsn names, and with --prove starting its own cluster
// (skipped, and said so, when this machine has no initdb).
func measureProve(bin, path string, o options, log io.Writer) (*proveResult, error) {
	r := &proveResult{}
	env := os.Environ()
	for i := 0; i < o.runs; i++ {
		fmt.Fprintf(log, "prove: lint of %d holes, run %d of %d\n", proveHoles, i+1, o.runs)
		plain, _, err := lintJSON(bin, env, path)
		if err != nil {
			return nil, err
		}
		onDSN, doc, err := lintJSON(bin, env, "--prove", "--scratch-dsn", o.dsn, path)
		if err != nil {
			return nil, err
		}
		if doc.Prove == nil || doc.Prove.Proven == 0 {
			return nil, fmt.Errorf("lint --prove on corpus P proved nothing")
		}
		per := time.Duration(doc.Prove.ElapsedSeconds * float64(time.Second) / float64(doc.Prove.Proven))
		if i == 0 || plain < r.plain {
			r.plain = plain
		}
		if i == 0 || onDSN < r.onDSN {
			r.onDSN = onDSN
		}
		if i == 0 || per < r.perFinding {
			r.perFinding = per
		}
		r.findings, r.version = len(doc.Findings), doc.Prove.ServerVersion
	}
	// The cluster: no scratch DSN in the environment.
	var clean []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "IDEMCHECK_SCRATCH_DSN=") {
			clean = append(clean, kv)
		}
	}
	for i := 0; i < 3; i++ {
		fmt.Fprintf(log, "prove: lint --prove with a throwaway cluster, run %d of 3\n", i+1)
		wall, doc, err := lintJSON(bin, clean, "--prove", path)
		if err != nil {
			fmt.Fprintf(log, "prove: no throwaway cluster: %v\n", err)
			return r, nil
		}
		started := time.Duration(doc.Prove.StartedSeconds * float64(time.Second))
		if i == 0 || started < r.clusterStart {
			r.clusterStart = started
		}
		if i == 0 || wall < r.onCluster {
			r.onCluster = wall
		}
	}
	return r, nil
}

// printProve writes corpus P's rows, beside the table's other rows.
func printProve(w io.Writer, p *proveResult, columns int) {
	blank := make([]string, columns-1)
	cell := func(label, value, target string) {
		row(w, append(append([]string{label, value}, blank...), target)...)
	}
	cell(fmt.Sprintf("`lint` of %d holes (corpus P), without `--prove`", proveHoles), seconds(p.plain), "")
	cell("the same, `--prove --scratch-dsn`", seconds(p.onDSN)+" (PostgreSQL "+p.version+")", "")
	cell("`--prove`: per finding, server warm (witness and fix)",
		verdict(float64(p.perFinding.Microseconds())/1000, " ms", p.perFinding <= maxPerFinding), fmt.Sprintf("≤ %d ms", maxPerFinding.Milliseconds()))
	if p.clusterStart == 0 {
		cell("`--prove`: throwaway cluster start (initdb, pg_ctl)", "no initdb here", fmt.Sprintf("≤ %.0f s", maxClusterStart.Seconds()))
		return
	}
	cell("`--prove`: throwaway cluster start (initdb, pg_ctl)", verdict(p.clusterStart.Seconds(), " s", p.clusterStart <= maxClusterStart),
		fmt.Sprintf("≤ %.0f s", maxClusterStart.Seconds()))
	cell("`lint --prove` with its own cluster", seconds(p.onCluster), "")
}
