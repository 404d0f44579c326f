package cmd

import (
	"encoding/json"
	"testing"

	"github.com/idemcheck/idemcheck/internal/truthcases"
	"github.com/idemcheck/idemcheck/racetest"
)

// The ground-truth suite through the CLI: targets that count their own side
// effect per key (the count is the truth), probed without an oracle and with
// --effect-url on the target's own count. For each the verdict and exit
// status are fixed, and over 100 rounds the probe must never say "holds"
// when the target counted two effects for one key (the calibration's
// included), nor "broken" when it never did. The same table runs through the
// Go test library in idemtest/groundtruth_test.go.
func TestRaceGroundTruth(t *testing.T) {
	for _, c := range truthcases.Cases(t, truthcases.Pool(t)) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			for _, oracle := range []bool{false, true} {
				want := c.Without
				if oracle {
					want = c.With
				}
				tg := c.Start(t)
				args := []string{"race", "http", "-H", tg.KeyHeader + ": " + tg.KeyValue, "-d", `{"amount":100}`,
					"--rounds", "100", "--settle", "5ms", "--format", "json"}
				if oracle {
					args = append(args, "--effect-url", tg.EffectsURL)
				}
				code, out, errs := runCmd(t, append(args, tg.URL)...)
				var res racetest.Result
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("oracle %v: exit %d, not JSON (%v):\n%s\nstderr: %s", oracle, code, err, out, errs)
				}
				doubled := tg.Doubled()
				got := res.Verdict.Status
				t.Logf("oracle %v: %s, exit %d; the target doubled %d keys; %s", oracle, got, code, doubled, res.Verdict.Sentence)
				if doubled > 0 && got == racetest.Holds {
					t.Errorf("oracle %v: HOLDS although the target counted two effects for %d keys: %s", oracle, doubled, res.Verdict.Sentence)
				}
				if doubled == 0 && got == racetest.Broken {
					t.Errorf("oracle %v: BROKEN although the target never counted two effects for a key: %s", oracle, res.Verdict.Sentence)
				}
				if got != want || code != exitFor(want) {
					t.Errorf("oracle %v: %s exit %d, want %s exit %d: %s", oracle, got, code, want, exitFor(want), res.Verdict.Sentence)
				}
			}
		})
	}
}

func exitFor(st racetest.Status) int {
	return map[racetest.Status]int{racetest.Holds: ExitOK, racetest.Broken: ExitFindings, racetest.Inconclusive: ExitInconclusive}[st]
}
