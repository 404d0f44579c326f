package cmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/truthcases"
	"github.com/idemcheck/idemcheck/racetest"
)

var refusalRuns = flag.Int("refusal.runs", 10, "BenchmarkCalibrationRefusal: runs per target")

// BenchmarkCalibrationRefusal measures what the effect-before-claim rule
// (racetest.RefusalAfterWork, RefusalMargin) is chosen from: for every
// ground-truth target whose calibration retry is refused, the time the
// refusal took beside the time a win takes, over several runs of 30
// rounds without an oracle, with the target's own count of doubled keys
// as the truth. It prints one Markdown row per target (docs/race.md,
// "What responses cannot show"). Run it with
//
//	go test -run '^$' -bench CalibrationRefusal -benchtime 1x ./cmd [-refusal.runs 10]
//
// GATE_WORK_MS in the environment sets the work of the Django,
// ActiveRecord and express targets (default 6 ms).
func BenchmarkCalibrationRefusal(b *testing.B) {
	cases := truthcases.Cases(b, truthcases.Pool(b))
	var rows []string
	for _, c := range cases {
		var ratios, gaps, naive []float64
		verdicts := map[racetest.Status]int{}
		doubled, refused := 0, 0
		for range *refusalRuns {
			// Each run in a sub-benchmark of its own, so that its target
			// (a process, a database) is gone before the next starts.
			var res racetest.Result
			b.Run("run", func(b *testing.B) {
				tg := c.Start(b)
				args := []string{"race", "http", "-H", tg.KeyHeader + ": " + tg.KeyValue, "-d", `{"amount":100}`, "--settle", "5ms", "--format", "json"}
				if c.Marker != "" {
					args = append(args, "--replay-header", c.Marker)
				}
				_, out, _ := runCmd(b, append(args, tg.URL)...)
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					return
				}
				if tg.Doubled() > 0 {
					doubled++
				}
			})
			if res.Calibration == nil {
				break
			}
			verdicts[res.Verdict.Status]++
			if res.Calibration.Signature != racetest.SigRefuses {
				break // a target whose calibration is not refused has no row here
			}
			refused++
			work := workOf(&res)
			retry := slices.Min(res.Calibration.RefusalTimes)
			ratios = append(ratios, float64(retry)/float64(work))
			gaps = append(gaps, float64(work-retry)/float64(time.Millisecond))
			if n, ok := roundsRatio(&res); ok {
				naive = append(naive, n)
			}
		}
		if refused == 0 {
			continue
		}
		naiveText := "-"
		if len(naive) > 0 {
			naiveText = spread(naive, "%.2f")
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %d/%d | %s | %s | %s | %d holds, %d inconclusive, %d broken |", c.Name,
			map[bool]string{true: "doubled", false: "sound"}[doubled > 0], refused, *refusalRuns, spread(ratios, "%.2f"), spread(gaps, "%.1f"), naiveText,
			verdicts[racetest.Holds], verdicts[racetest.Inconclusive], verdicts[racetest.Broken]))
	}
	fmt.Fprintf(os.Stdout, "GATE_WORK_MS=%s\n| target | truth | runs refused | retry / win (min median max) | win - retry, ms (min median max) | naive: the rounds' refusals / wins | verdicts without an oracle |\n|---|---|---|---|---|---|---|\n%s\n",
		os.Getenv("GATE_WORK_MS"), strings.Join(rows, "\n"))
}

// workOf is what the rule compares the refusal with: the shortest of the
// calibration's first request and the rounds' wins.
func workOf(res *racetest.Result) time.Duration {
	work := res.Calibration.First.Elapsed
	for _, r := range res.Rounds {
		for _, o := range r.Outcomes {
			if o.Kind == racetest.Win && o.Elapsed > 0 {
				work = min(work, o.Elapsed)
			}
		}
	}
	return work
}

// roundsRatio is the naive reading the rule does not make: the median time
// of the rounds' refusals over the median of their wins. A sound gate
// whose loser waits on the winner's lock looks, by it, like one whose
// effect runs first.
func roundsRatio(res *racetest.Result) (float64, bool) {
	var wins, refusals []time.Duration
	for _, r := range res.Rounds {
		for _, o := range r.Outcomes {
			switch o.Kind {
			case racetest.Win:
				wins = append(wins, o.Elapsed)
			case racetest.Refusal:
				refusals = append(refusals, o.Elapsed)
			}
		}
	}
	if len(wins) == 0 || len(refusals) == 0 {
		return 0, false
	}
	slices.Sort(wins)
	slices.Sort(refusals)
	return float64(refusals[len(refusals)/2]) / float64(wins[len(wins)/2]), true
}

func spread(xs []float64, f string) string {
	slices.Sort(xs)
	return fmt.Sprintf(f+" "+f+" "+f, xs[0], xs[len(xs)/2], xs[len(xs)-1])
}
