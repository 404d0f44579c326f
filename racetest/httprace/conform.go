package httprace

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/racetest"
)

// Profile is the statuses a conformance run expects (docs/race.md).
type Profile struct {
	Name string
	// Missing is the status for a request without a key; 0 when the
	// profile does not require a key.
	Missing racetest.StatusSet
	// Mismatch is the status for a key reused with a different payload.
	Mismatch racetest.StatusSet
	// MismatchBody, when set, must appear in the mismatch response body
	// (Stripe's idempotency_error).
	MismatchBody string
}

// ProfileNamed returns the ietf, stripe or custom profile; custom expects
// the --refuse statuses everywhere.
func ProfileNamed(name string, refuse racetest.StatusSet) (Profile, error) {
	s := func(v string) racetest.StatusSet { set, _ := racetest.ParseStatusSet(v); return set }
	switch name {
	case "ietf":
		return Profile{Name: name, Missing: s("400"), Mismatch: s("422")}, nil
	case "stripe":
		return Profile{Name: name, Mismatch: s("400"), MismatchBody: "idempotency_error"}, nil
	case "custom":
		return Profile{Name: name, Missing: refuse, Mismatch: refuse}, nil
	}
	return Profile{}, fmt.Errorf("--profile %q: want ietf, stripe or custom", name)
}

// Conform runs the five sequential checks of docs/race.md around the burst
// whose result is res, in the protocol the burst spoke. failBody is a
// payload the target fails on (check 4; skipped when empty). With an
// effect oracle every check also counts the effects it caused.
func Conform(ctx context.Context, p Probe, prof Profile, failBody string, res *racetest.Result) []racetest.Check {
	p.Defaults()
	c := conformer{p: p, prof: prof, sync: res.Sync}
	if c.sync != SyncH1 && c.sync != SyncH2 {
		c.sync = SyncH1
	}
	return []racetest.Check{
		c.retryReplays(ctx, res),
		c.mismatchRefused(ctx),
		c.missingKeyRefused(ctx),
		c.failureReleasesSlot(ctx, failBody),
		c.distinctKeysEachWin(ctx),
	}
}

type conformer struct {
	p    Probe
	prof Profile
	sync string
}

func passIf(ok bool) racetest.CheckResult {
	if ok {
		return racetest.CheckPass
	}
	return racetest.CheckFail
}

func skipped(ch racetest.Check, why string) racetest.Check {
	ch.Result, ch.Sent, ch.Got, ch.Detail = racetest.CheckSkipped, "nothing", "nothing", "skipped: "+why
	return ch
}

// send renders the probe's request with v, optionally with another body
// and without the headers that carry the key, and sends it once.
func (c *conformer) send(ctx context.Context, v racetest.RoundValues, body *string, dropKey bool) (racetest.Response, string) {
	r, err := renderRequest(&c.p, v)
	if err != nil {
		return racetest.Response{Err: err}, ""
	}
	if body != nil {
		r.body = []byte(*body)
	}
	if dropKey {
		kept := r.header[:0:0]
		for i, h := range r.header {
			if !carriesKey(&c.p, i, h, v) {
				kept = append(kept, h)
			}
		}
		r.header = kept
	}
	resp, _, err := sendOne(ctx, &c.p, c.sync, r, 0)
	if err != nil {
		resp = racetest.Response{Err: err}
	}
	return resp, showRequest(r, c.p.Secrets)
}

// carriesKey reports whether header i of a request rendered with v
// carries the round's key: its template names {{key}} or {{uuid}}, or,
// for a built request, its value holds the key.
func carriesKey(p *Probe, i int, h Header, v racetest.RoundValues) bool {
	if p.Build != nil {
		return strings.Contains(string(h.Value), v.Key) || strings.Contains(string(h.Value), v.UUID)
	}
	tmpl := string(p.Header[i].Value)
	return strings.Contains(tmpl, "{{key}}") || strings.Contains(tmpl, "{{uuid}}")
}

func (c *conformer) show(r racetest.Response) string { return racetest.ShowResponse(r, c.p.Marker) }

func (c *conformer) won(r racetest.Response) bool {
	return r.Err == nil && c.p.Classifier.Win.Has(r.Status)
}

func (c *conformer) fresh(tag string) racetest.RoundValues {
	return c.p.values(c.p.RunID+"-"+tag, 0)
}

// count reads the oracle for v; ok is false without an oracle or when it
// failed (then the error is in detail).
func (c *conformer) count(ctx context.Context, v racetest.RoundValues, detail *string) (int64, bool) {
	if c.p.Effect == nil {
		return 0, false
	}
	n, err := c.p.countEffects(ctx, v, "in the check")
	if err != nil {
		*detail = err.Error() // it names the oracle, the phase and the time waited
		return 0, false
	}
	return n, true
}

// 1: a retry after the burst returns the winner's response, and with an
// oracle it does not run the effect again.
func (c *conformer) retryReplays(ctx context.Context, res *racetest.Result) racetest.Check {
	ch := racetest.Check{Name: "a retry after the burst returns the winner's response"}
	var round *racetest.Round
	var winner *racetest.Outcome
	for i := len(res.Rounds) - 1; i >= 0 && winner == nil; i-- {
		r := &res.Rounds[i]
		if r.Wins() != 1 {
			continue
		}
		for k := range r.Outcomes {
			if r.Outcomes[k].Kind == racetest.Win {
				round, winner = r, &r.Outcomes[k]
				break
			}
		}
	}
	if winner == nil {
		return skipped(ch, "no round had exactly one win to retry")
	}
	before, counted := c.count(ctx, round.Values, &ch.Detail)
	got, sent := c.send(ctx, round.Values, nil, false)
	ch.Sent, ch.Got = sent+" (key of round "+fmt.Sprint(round.Index)+")", c.show(got)
	same := got.Err == nil && got.Status == winner.Status && bytes.Equal(got.Body, winner.Body)
	ch.Result = passIf(same)
	if counted {
		after, ok := c.count(ctx, round.Values, &ch.Detail)
		switch {
		case !ok:
			ch.Result = racetest.CheckFail
		case after != before:
			ch.Result = racetest.CheckFail
			ch.Detail = fmt.Sprintf("the retry ran the effect again: %s went from %d to %d", c.p.Effect.Evidence(), before, after)
			return ch
		}
	}
	if !same {
		ch.Detail = fmt.Sprintf("the winner got %d %s", winner.Status, racetest.Clip(winner.Body))
	}
	return ch
}

// 2: the same key with a different payload is refused with the profile's
// status and no effect.
func (c *conformer) mismatchRefused(ctx context.Context) racetest.Check {
	ch := racetest.Check{Name: "the same key with a different payload is refused"}
	v := c.fresh("mismatch")
	first, _ := c.send(ctx, v, nil, false)
	other := differentPayload(c.p.Body.Render(v))
	before, counted := c.count(ctx, v, &ch.Detail)
	got, sent := c.send(ctx, v, &other, false)
	after, _ := c.count(ctx, v, &ch.Detail)
	ch.Sent, ch.Got = sent, c.show(got)
	ch.Result = passIf(got.Err == nil && c.prof.Mismatch.Has(got.Status) &&
		bytes.Contains(got.Body, []byte(c.prof.MismatchBody)) && before == after)
	switch {
	case !c.won(first):
		ch.Result, ch.Detail = racetest.CheckFail, "the first request was not a win: "+c.show(first)
	case counted && before != after:
		ch.Result = racetest.CheckFail
		ch.Detail = fmt.Sprintf("the refused request still had an effect: %s went from %d to %d", c.p.Effect.Evidence(), before, after)
	case ch.Result == racetest.CheckFail && ch.Detail == "":
		ch.Detail = fmt.Sprintf("profile %s wants %s", c.prof.Name, c.prof.describeMismatch())
	}
	return ch
}

func (p Profile) describeMismatch() string {
	if p.MismatchBody != "" {
		return fmt.Sprintf("%v with %q in the body", p.Mismatch, p.MismatchBody)
	}
	return fmt.Sprint(p.Mismatch)
}

// differentPayload changes a body so that no gate can mistake it for the
// original: a field is added to a JSON object, anything else gets a suffix.
func differentPayload(body string) string {
	t := strings.TrimSpace(body)
	if strings.HasPrefix(t, "{") {
		rest := strings.TrimSpace(t[1:])
		if rest == "}" {
			return `{"idemcheck_variant":true}`
		}
		return `{"idemcheck_variant":true,` + rest
	}
	return body + "-idemcheck-variant"
}

// 3: a missing key is refused where the profile requires one.
func (c *conformer) missingKeyRefused(ctx context.Context) racetest.Check {
	ch := racetest.Check{Name: "a request without a key is refused"}
	if c.prof.Missing == nil {
		return skipped(ch, "profile "+c.prof.Name+" does not require a key")
	}
	got, sent := c.send(ctx, c.fresh("missing"), nil, true)
	ch.Sent, ch.Got = sent, c.show(got)
	ch.Result = passIf(got.Err == nil && c.prof.Missing.Has(got.Status))
	if ch.Result == racetest.CheckFail {
		ch.Detail = fmt.Sprintf("profile %s wants %v", c.prof.Name, c.prof.Missing)
	}
	return ch
}

// 4: after a request that fails, a retry with the same key is processed
// again; with an oracle, the retry must have performed the effect.
func (c *conformer) failureReleasesSlot(ctx context.Context, failBody string) racetest.Check {
	ch := racetest.Check{Name: "a failed attempt releases its key"}
	if failBody == "" {
		return skipped(ch, "give --fail-data with a payload the target fails on")
	}
	v := c.fresh("failed")
	failed, sent1 := c.send(ctx, v, &failBody, false)
	before, counted := c.count(ctx, v, &ch.Detail)
	retry, sent2 := c.send(ctx, v, nil, false)
	after, _ := c.count(ctx, v, &ch.Detail)
	ch.Sent = sent1 + ", then " + sent2
	ch.Got = c.show(failed) + ", then " + c.show(retry)
	ch.Result = passIf(failed.Err == nil && !c.p.Classifier.Win.Has(failed.Status) && c.won(retry))
	switch {
	case ch.Result == racetest.CheckFail:
		ch.Detail = "the retry after a failure must be processed again (a failed attempt must not keep its slot)"
	case counted && after-before != 1:
		ch.Result = racetest.CheckFail
		ch.Detail = fmt.Sprintf("the retry answered %d but %s went from %d to %d", retry.Status, c.p.Effect.Evidence(), before, after)
	}
	return ch
}

// 5: concurrent requests with different keys each perform their effect.
func (c *conformer) distinctKeysEachWin(ctx context.Context) racetest.Check {
	ch := racetest.Check{Name: "concurrent requests with different keys each win"}
	replies := make([]racetest.Response, c.p.N)
	vals := make([]racetest.RoundValues, c.p.N)
	var wg sync.WaitGroup
	for i := range replies {
		vals[i] = c.fresh(fmt.Sprintf("distinct%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i], _ = c.send(ctx, vals[i], nil, false)
		}()
	}
	wg.Wait()
	ch.Sent = fmt.Sprintf("%d requests at once, each with its own key", c.p.N)
	var got []string
	ok := true
	for _, r := range replies {
		got = append(got, c.show(r))
		ok = ok && c.won(r)
	}
	ch.Got = strings.Join(got, "; ")
	ch.Result = passIf(ok)
	if !ok {
		ch.Detail = "a gate must not refuse requests whose keys differ"
		return ch
	}
	if c.p.Effect != nil {
		for i, v := range vals {
			n, counted := c.count(ctx, v, &ch.Detail)
			if !counted || n != 1 {
				ch.Result = racetest.CheckFail
				if counted {
					ch.Detail = fmt.Sprintf("request %d answered %d but %s was %d", i+1, replies[i].Status, c.p.Effect.Evidence(), n)
				}
				break
			}
		}
	}
	return ch
}
