package cmd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/truthcases"
	"github.com/idemcheck/idemcheck/racetest"
)

// The ground-truth suite through the CLI: targets that count their own side
// effect per key (the count is the truth), probed without an oracle and with
// --effect-url on the target's own count, in JSON (100 rounds) and in text
// (30 rounds). For each the verdict and exit status are fixed, and the probe
// must never say "holds" when the target counted two effects for one key
// (the calibration's included), nor "broken" when it never did. The same
// table runs through the Go test library in idemtest/groundtruth_test.go.
// With -v the test prints the verdict table: target, mode, verdict, exit,
// and the keys the target counted twice.
func TestRaceGroundTruth(t *testing.T) {
	var mu sync.Mutex
	var table []string
	t.Cleanup(func() {
		slices.Sort(table)
		t.Logf("the verdict table:\n| target | mode | verdict | exit | keys doubled (the truth) |\n|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
	})
	for _, c := range truthcases.Cases(t, truthcases.Pool(t)) {
		t.Run(c.Name, func(t *testing.T) {
			if !c.Quiet {
				t.Parallel()
			}
			for _, oracle := range []bool{false, true} {
				for _, format := range []string{"json", "text"} {
					want := c.Without
					if oracle {
						want = c.With
					}
					got, code, doubled, sentence := raceTruthCase(t, c, oracle, format)
					if c.Quiet && !oracle && got == racetest.Inconclusive && want == racetest.Holds && strings.Contains(sentence, "not clearly sooner") {
						// The verdict rests on timing; a busy machine gets
						// one more try.
						t.Logf("oracle %v, %s: %s; once more", oracle, format, sentence)
						got, code, doubled, sentence = raceTruthCase(t, c, oracle, format)
					}
					mode := map[bool]string{false: "no oracle", true: "--effect-url"}[oracle] + ", " + format
					mu.Lock()
					table = append(table, fmt.Sprintf("| %s | %s | %s | %d | %d |", c.Name, mode, got, code, doubled))
					mu.Unlock()
					t.Logf("%s: %s, exit %d; the target doubled %d keys; %s", mode, got, code, doubled, sentence)
					if doubled > 0 && got == racetest.Holds {
						t.Errorf("%s: HOLDS although the target counted two effects for %d keys: %s", mode, doubled, sentence)
					}
					if doubled == 0 && got == racetest.Broken {
						t.Errorf("%s: BROKEN although the target never counted two effects for a key: %s", mode, sentence)
					}
					if got != want || code != exitFor(want) {
						t.Errorf("%s: %s exit %d, want %s exit %d: %s", mode, got, code, want, exitFor(want), sentence)
					}
				}
			}
		})
	}
	// A forgotten {{key}} is the command line's mistake: exit 2 and not a
	// request sent, whatever the target.
	for _, c := range truthcases.Cases(t, truthcases.Pool(t)) {
		if !slices.Contains([]string{"sound gate, 409 in flight, marked replays", "express-idempotency on Redis (npm)", "Django: claim and charge in one transaction.atomic() (Debian)"}, c.Name) {
			continue
		}
		t.Run("forgotten key: "+c.Name, func(t *testing.T) {
			tg := c.Start(t)
			code, out, errs := runCmd(t, "race", "http", "-H", tg.KeyHeader+": the-same-every-round", "--effect-url", strings.ReplaceAll(tg.EffectsURL, tg.KeyValue, "the-same-every-round"), tg.URL)
			n, err := tg.Count(t.Context(), "the-same-every-round")
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			table = append(table, fmt.Sprintf("| %s | forgotten {{key}} | usage error | %d | %d (effects for the key: %d) |", c.Name, code, tg.Doubled(), n))
			mu.Unlock()
			if code != ExitUsage || !strings.Contains(errs, "the requests of every round would be identical") || n != 0 {
				t.Errorf("exit %d, %d effects: want 2 before anything was sent:\n%s%s", code, n, out, errs)
			}
		})
	}
}

// raceTruthCase races a fresh start of c's target once and reads the
// verdict from the output in format.
func raceTruthCase(t *testing.T, c truthcases.Case, oracle bool, format string) (racetest.Status, int, int, string) {
	t.Helper()
	tg := c.Start(t)
	// A target in this process may share its table with an earlier run:
	// the truth is what this run doubled.
	already := tg.Doubled()
	rounds := map[string]string{"json": "100", "text": "30"}[format]
	args := []string{"race", "http", "-H", tg.KeyHeader + ": " + tg.KeyValue, "-d", `{"amount":100}`,
		"--rounds", rounds, "--settle", "5ms", "--format", format}
	if oracle {
		args = append(args, "--effect-url", tg.EffectsURL)
	}
	if c.Marker != "" {
		args = append(args, "--replay-header", c.Marker)
	}
	code, out, errs := runCmd(t, append(args, tg.URL)...)
	doubled := tg.Doubled() - already
	if format == "json" {
		var res racetest.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("oracle %v: exit %d, not JSON (%v):\n%s\nstderr: %s", oracle, code, err, out, errs)
		}
		wantEvidence := racetest.EvidenceCount
		if !oracle {
			wantEvidence = racetest.EvidenceResponses
			if res.Verdict.Evidence == racetest.EvidenceMarker {
				wantEvidence = racetest.EvidenceMarker
			}
		}
		if res.Verdict.Evidence != wantEvidence {
			t.Errorf("oracle %v: the verdict rests on %q, want %q", oracle, res.Verdict.Evidence, wantEvidence)
		}
		return res.Verdict.Status, code, doubled, res.Verdict.Sentence
	}
	for _, line := range strings.Split(out, "\n") {
		for _, st := range []racetest.Status{racetest.Holds, racetest.Broken, racetest.Inconclusive} {
			if rest, ok := strings.CutPrefix(line, strings.ToUpper(string(st))+": "); ok {
				if st == racetest.Holds && !oracle && !strings.HasPrefix(rest, "the gate held by its responses") {
					t.Errorf("text: a run without an oracle holds without saying it is by its responses: %s", line)
				}
				return st, code, doubled, rest
			}
		}
	}
	t.Fatalf("oracle %v: exit %d, no verdict line:\n%s\nstderr: %s", oracle, code, out, errs)
	return "", 0, 0, ""
}

func exitFor(st racetest.Status) int {
	return map[racetest.Status]int{racetest.Holds: ExitOK, racetest.Broken: ExitFindings, racetest.Inconclusive: ExitInconclusive}[st]
}
