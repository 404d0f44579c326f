package racetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
)

// Profile is the statuses a conformance run expects (RACE.md).
type Profile struct {
	Name string
	// Missing is the status for a request without a key; 0 when the
	// profile does not require a key.
	Missing StatusSet
	// Mismatch is the status for a key reused with a different payload.
	Mismatch StatusSet
	// MismatchBody, when set, must appear in the mismatch response body
	// (Stripe's idempotency_error).
	MismatchBody string
}

// ProfileNamed returns the ietf, stripe or custom profile; custom expects
// the --refuse statuses everywhere.
func ProfileNamed(name string, refuse StatusSet) (Profile, error) {
	s := func(v string) StatusSet { set, _ := ParseStatusSet(v); return set }
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

// Conform runs the five sequential checks of RACE.md around the burst
// whose result is res, in the protocol the burst spoke. failBody is a
// payload the target fails on (check 4; skipped when empty). With an
// effect oracle every check also counts the effects it caused.
func Conform(ctx context.Context, p Probe, prof Profile, failBody string, res *Result) []Check {
	p.Defaults()
	c := conformer{p: p, prof: prof, sync: res.Sync}
	if c.sync != SyncH1 && c.sync != SyncH2 {
		c.sync = SyncH1
	}
	return []Check{
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

func passIf(ok bool) CheckResult {
	if ok {
		return CheckPass
	}
	return CheckFail
}

func skipped(ch Check, why string) Check {
	ch.Result, ch.Sent, ch.Got, ch.Detail = CheckSkipped, "nothing", "nothing", "skipped: "+why
	return ch
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// send renders the probe's request with v, optionally with another body
// and without the headers that carry the key, and sends it once.
func (c *conformer) send(ctx context.Context, v RoundValues, body *string, dropKey bool) (response, string) {
	r, err := renderRequest(&c.p, v)
	if err != nil {
		return response{err: err}, ""
	}
	if body != nil {
		r.body = []byte(*body)
	}
	if dropKey {
		kept := r.header[:0:0]
		for i, h := range r.header {
			tmpl := string(c.p.Header[i].Value)
			if !strings.Contains(tmpl, "{{key}}") && !strings.Contains(tmpl, "{{uuid}}") {
				kept = append(kept, h)
			}
		}
		r.header = kept
	}
	resp, err := sendOne(ctx, &c.p, c.sync, r)
	if err != nil {
		resp = response{err: err}
	}
	return resp, showRequest(r, c.p.Secrets)
}

func (c *conformer) show(r response) string { return showResponse(r, c.p.Marker) }

func (c *conformer) won(r response) bool {
	return r.err == nil && c.p.Classifier.Win.Has(r.status)
}

func (c *conformer) fresh(tag string) RoundValues {
	return NewRoundValues(c.p.RunID+"-"+tag, 0)
}

// count reads the oracle for v; ok is false without an oracle or when it
// failed (then the error is in detail).
func (c *conformer) count(ctx context.Context, v RoundValues, detail *string) (int64, bool) {
	if c.p.Effect == nil {
		return 0, false
	}
	n, err := c.p.Effect.Count(ctx, v)
	if err != nil {
		*detail = fmt.Sprintf("%s failed: %v", c.p.Effect.Evidence(), err)
		return 0, false
	}
	return n, true
}

// 1: a retry after the burst returns the winner's response, and with an
// oracle it does not run the effect again.
func (c *conformer) retryReplays(ctx context.Context, res *Result) Check {
	ch := Check{Name: "a retry after the burst returns the winner's response"}
	var round *Round
	var winner *Outcome
	for i := len(res.Rounds) - 1; i >= 0 && winner == nil; i-- {
		r := &res.Rounds[i]
		if r.Wins() != 1 {
			continue
		}
		for k := range r.Outcomes {
			if r.Outcomes[k].Kind == Win {
				round, winner = r, &r.Outcomes[k]
				break
			}
		}
	}
	if winner == nil {
		return skipped(ch, "no round had exactly one win to retry")
	}
	before, counted := c.count(ctx, round.values, &ch.Detail)
	got, sent := c.send(ctx, round.values, nil, false)
	ch.Sent, ch.Got = sent+" (key of round "+fmt.Sprint(round.Index)+")", c.show(got)
	same := got.err == nil && got.status == winner.Status && bytes.Equal(got.body, winner.body)
	ch.Result = passIf(same)
	if counted {
		after, ok := c.count(ctx, round.values, &ch.Detail)
		switch {
		case !ok:
			ch.Result = CheckFail
		case after != before:
			ch.Result = CheckFail
			ch.Detail = fmt.Sprintf("the retry ran the effect again: %s went from %d to %d", c.p.Effect.Evidence(), before, after)
			return ch
		}
	}
	if !same {
		ch.Detail = fmt.Sprintf("the winner got %d %s", winner.Status, clip(winner.body))
	}
	return ch
}

// 2: the same key with a different payload is refused with the profile's
// status and no effect.
func (c *conformer) mismatchRefused(ctx context.Context) Check {
	ch := Check{Name: "the same key with a different payload is refused"}
	v := c.fresh("mismatch")
	first, _ := c.send(ctx, v, nil, false)
	other := differentPayload(c.p.Body.Render(v))
	before, counted := c.count(ctx, v, &ch.Detail)
	got, sent := c.send(ctx, v, &other, false)
	after, _ := c.count(ctx, v, &ch.Detail)
	ch.Sent, ch.Got = sent, c.show(got)
	ch.Result = passIf(got.err == nil && c.prof.Mismatch.Has(got.status) &&
		bytes.Contains(got.body, []byte(c.prof.MismatchBody)) && before == after)
	switch {
	case !c.won(first):
		ch.Result, ch.Detail = CheckFail, "the first request was not a win: "+c.show(first)
	case counted && before != after:
		ch.Result = CheckFail
		ch.Detail = fmt.Sprintf("the refused request still had an effect: %s went from %d to %d", c.p.Effect.Evidence(), before, after)
	case ch.Result == CheckFail && ch.Detail == "":
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

func (s StatusSet) String() string {
	var parts []string
	for _, r := range s {
		if r.lo == r.hi {
			parts = append(parts, fmt.Sprint(r.lo))
		} else if r.hi-r.lo == 99 && r.lo%100 == 0 {
			parts = append(parts, fmt.Sprintf("%dxx", r.lo/100))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.lo, r.hi))
		}
	}
	return strings.Join(parts, ",")
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
func (c *conformer) missingKeyRefused(ctx context.Context) Check {
	ch := Check{Name: "a request without a key is refused"}
	if c.prof.Missing == nil {
		return skipped(ch, "profile "+c.prof.Name+" does not require a key")
	}
	got, sent := c.send(ctx, c.fresh("missing"), nil, true)
	ch.Sent, ch.Got = sent, c.show(got)
	ch.Result = passIf(got.err == nil && c.prof.Missing.Has(got.status))
	if ch.Result == CheckFail {
		ch.Detail = fmt.Sprintf("profile %s wants %v", c.prof.Name, c.prof.Missing)
	}
	return ch
}

// 4: after a request that fails, a retry with the same key is processed
// again; with an oracle, the retry must have performed the effect.
func (c *conformer) failureReleasesSlot(ctx context.Context, failBody string) Check {
	ch := Check{Name: "a failed attempt releases its key"}
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
	ch.Result = passIf(failed.err == nil && !c.p.Classifier.Win.Has(failed.status) && c.won(retry))
	switch {
	case ch.Result == CheckFail:
		ch.Detail = "the retry after a failure must be processed again (a failed attempt must not keep its slot)"
	case counted && after-before != 1:
		ch.Result = CheckFail
		ch.Detail = fmt.Sprintf("the retry answered %d but %s went from %d to %d", retry.status, c.p.Effect.Evidence(), before, after)
	}
	return ch
}

// 5: concurrent requests with different keys each perform their effect.
func (c *conformer) distinctKeysEachWin(ctx context.Context) Check {
	ch := Check{Name: "concurrent requests with different keys each win"}
	replies := make([]response, c.p.N)
	vals := make([]RoundValues, c.p.N)
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
				ch.Result = CheckFail
				if counted {
					ch.Detail = fmt.Sprintf("request %d answered %d but %s was %d", i+1, replies[i].status, c.p.Effect.Evidence(), n)
				}
				break
			}
		}
	}
	return ch
}
