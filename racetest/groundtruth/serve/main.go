// Command serve runs one ground-truth target on a loopback port until
// interrupted, to try the race probe by hand and to reproduce the
// README's examples:
//
//	go run ./racetest/groundtruth/serve read-check-write
//	go run ./racetest/groundtruth/serve -addr 127.0.0.1:8401 -dsn postgres://... read-then-insert
//
// It prints the claim URL and the --effect-url template on its own count.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	dsn := flag.String("dsn", "", "PostgreSQL database for the read-then-insert and on-conflict targets (their tables are created)")
	addr := flag.String("addr", "127.0.0.1:0", "the loopback address to listen on; port 0 picks a free one")
	flag.Parse()
	mem := map[string]func() (http.Handler, groundtruth.Effects){
		"read-check-write": func() (http.Handler, groundtruth.Effects) { g := &groundtruth.ReadCheckWrite{}; return g, g },
		"read-check-write-fresh-id": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.ReadCheckWrite{FreshID: true}
			return g, g
		},
		"sound-marked": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Marked}
			return g, g
		},
		"sound-same-bytes": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.SameBytes}
			return g, g
		},
		"sound-rerendered": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Rerendered}
			return g, g
		},
		"sound-accepted": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Accepted}
			return g, g
		},
		"late-duplicate": func() (http.Handler, groundtruth.Effects) { g := &groundtruth.LateDuplicate{}; return g, g },
		"resetting-duplicate": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.LateDuplicate{Late: groundtruth.Resets}
			return g, g
		},
		"silent-duplicate": func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.LateDuplicate{Late: groundtruth.NeverAnswers}
			return g, g
		},
		"in-flight-only": func() (http.Handler, groundtruth.Effects) { g := &groundtruth.InFlightOnly{}; return g, g },
		"no-dedupe":      func() (http.Handler, groundtruth.Effects) { g := &groundtruth.NoDedupe{}; return g, g },
	}
	pg := map[string]string{"read-then-insert": groundtruth.CreateCharges, "on-conflict-nullable": groundtruth.CreateClaimsNullable, "on-conflict-nulls-not-distinct": groundtruth.CreateClaimsNND,
		"effect-first": groundtruth.CreateEffectFirst, "one-transaction": groundtruth.CreateOneTransaction}
	var names []string
	for n := range mem {
		names = append(names, n)
	}
	for n := range pg {
		names = append(names, n)
	}
	sort.Strings(names)
	if flag.NArg() != 1 {
		fail("usage: serve [-dsn DSN] TARGET; targets: %s", strings.Join(names, ", "))
	}
	name := flag.Arg(0)
	var h http.Handler
	var eff groundtruth.Effects
	if build, ok := mem[name]; ok {
		h, eff = build()
	} else if create, ok := pg[name]; ok {
		if *dsn == "" {
			fail("%s needs -dsn", name)
		}
		pool, err := pgxpool.New(context.Background(), *dsn)
		if err != nil {
			fail("%v", err)
		}
		defer pool.Close()
		if _, err := pool.Exec(context.Background(), create); err != nil {
			fail("%v", err)
		}
		switch name {
		case "read-then-insert":
			g := groundtruth.NewReadThenInsert(pool)
			h, eff = g, g
		case "on-conflict-nullable":
			g := groundtruth.NewOnConflictClaim(pool, "claims_nullable")
			h, eff = g, g
		case "effect-first":
			g := groundtruth.NewEffectFirst(pool)
			h, eff = g, g
		case "one-transaction":
			g := groundtruth.NewOneTransaction(pool)
			h, eff = g, g
		default:
			g := groundtruth.NewOnConflictClaim(pool, "claims_nnd")
			h, eff = g, g
		}
	} else {
		fail("unknown target %q; targets: %s", name, strings.Join(names, ", "))
	}
	srv, err := groundtruth.StartOn(*addr, h, eff)
	if err != nil {
		fail("%v", err)
	}
	defer srv.Close()
	fmt.Printf("%s\n%s\n", srv.URL, srv.EffectsURL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "serve: "+format+"\n", args...)
	os.Exit(2)
}
