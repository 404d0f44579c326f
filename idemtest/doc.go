// Package idemtest is the two-thread test as a library: it races identical
// requests at an idempotency gate, round after round with a fresh key, and
// fails the test unless exactly one request in every round performed the
// effect. It is to idempotency keys what net/http/httptest is to handlers:
// a call in an ordinary go test, next to the handler, on every commit.
//
// A test that sends a request twice in a row proves nothing: the first has
// finished writing before the second reads. A gate that reads the key,
// does the work, then records the key lets both of two concurrent requests
// through, and only a race shows it. idemtest lands the requests together:
// each on a connection of its own, every request written but its last
// bytes, which are then released at once. It is the race engine of the
// idemcheck CLI (`idemcheck race http`), with its evidence and its
// verdicts.
//
// # Use
//
// [Handler] races an [net/http.Handler] served on a loopback listener, so the
// whole HTTP stack (routing, middleware, body parsing) runs as in
// production. [HTTP] races a URL. Both take a template request: each
// round's key goes in its Idempotency-Key header ([KeyHeader]) and its body
// is sent again with every request.
//
//	func TestChargeIsIdempotent(t *testing.T) {
//		db := testDB(t)
//		req := httptest.NewRequest("POST", "/charges", strings.NewReader(`{"amount":100}`))
//		idemtest.Handler(t, charges.Handler(db), req,
//			idemtest.CountEffects(func(ctx context.Context, key string) (int, error) {
//				var n int
//				err := db.QueryRow(ctx, `SELECT count(*) FROM charges WHERE idempotency_key = $1`, key).Scan(&n)
//				return n, err
//			}))
//	}
//
// A race of a read-then-write gate fails the test with
//
//	idemtest: gate broken in 30 of 30 rounds (round 1: 2 requests performed the effect; effect count 2): the claim is a read-then-write, or its unique constraint is missing or has a nullable key part
//
// and a gate whose first claim is refused too with
//
//	idemtest: no request won in round 1: the slot is held by an earlier attempt, or the claim type is not registered
//
// The claim statement inside PostgreSQL races on its own, without a server,
// with Claim in package [github.com/idemcheck/idemcheck/idemtest/idemsql];
// when it is broken, its failure
// names the unique index that should have refused, in the words of the
// idemcheck audit.
//
// # Evidence
//
// Two identical successes are not proof of two effects: a server that
// replays the winner's response sends the same bytes. What decides a
// round, strongest first:
//
//   - the effect counter ([CountEffects]): the count of the effect for the
//     round's key, read before and after the round;
//   - the replay marker on the responses that are replays: by default
//     Idempotent-Replayed: true is recognised, and [ReplayHeader] declares
//     the server's own, which then makes every unmarked success a win;
//   - the calibration: before the first round, one request with a fresh key
//     and, after its response, the same request again. A server that
//     refuses the retry (409) never replays a success, so two successes in
//     a round are two wins.
//
// Statuses fall into classes: [Win] (every 2xx by default), [Refuse] (409
// and 425) and [InFlight] (202, accepted but not yet performed, which is
// neither). [Result] says which evidence decided ([Result.Evidence]). A
// race that holds by its responses alone assumes that a refusal did no
// work, and its message says so: a handler that charges and then refuses
// on its claim answers 409 after charging. When the calibration's retry
// of a finished key is refused only after about as long as a win takes,
// the race is inconclusive for that reason; only CountEffects proves the
// effect.
//
// When nothing can tell a replay from a win, the run is inconclusive, never
// a pass, and the message says how to settle it. An inconclusive run fails
// the test unless [SkipInconclusive] turns it into a skip with the reason.
//
// # Forms
//
// [HTTP], [Handler] and idemsql.Claim stop the test when the gate fails
// (t.Fatal), as testify's require does; [CheckHTTP], [CheckHandler] and
// idemsql.CheckClaim mark it failed (t.Error) and let it go on, as
// testify's assert does. Every one returns the [Result] for further
// assertions. A gate that held is logged with t.Log; a failure logs the
// race's report (the calibration and the worst round) before its message.
//
// # Keys, rounds and time
//
// Each round's key is a fresh random UUID, which servers that insist on
// UUID keys and uuid columns accept; [BuildRequest] puts it anywhere else.
// There are 30 rounds of 2 requests by default ([Rounds], [N]): if one round
// exposes a broken gate with probability p, 30 rounds all miss it with
// probability (1-p)^30, under 5% for p >= 0.1. Against a handler (or any
// loopback URL) a round takes about 5 ms more than the handler's own time,
// so a race of a 5 ms handler takes about half a second.
//
// # Tests
//
// The helpers use nothing but what t gives: t.Context, the test's deadline
// (a race ends early enough to report before go test -timeout), t.Log,
// t.Error, t.Fatal and t.Skip. They keep no global state and print
// nothing, so they run under t.Parallel, -race and -count. HTTP and
// Handler need no cgo and no database driver: they build with
// CGO_ENABLED=0. idemsql needs pgx, and cgo for the audit's words.
package idemtest
