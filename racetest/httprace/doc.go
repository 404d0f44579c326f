// Package httprace is the HTTP probe of the race engine. It lands N
// identical requests at a URL together, round after round: HTTP/1.1 on N
// pre-opened connections whose withheld tails are released at once, or
// HTTP/2 with every stream's withheld frames in one write (one packet, one
// TLS record). It writes every request itself, one connection each, so
// that nothing is ever resent; it also runs the calibration, the five
// sequential conformance checks and the effect oracles that count by URL
// or by command (--effect-url, --effect-cmd). Gate and DemoServer are the
// in-memory targets of `race demo`, the tests and the benchmark.
//
// What came back is judged by racetest, whose rounds loop drives the
// probe. This package needs no cgo and no database driver: the
// PostgreSQL oracle (--effect-sql) is sqlrace.Effect, which satisfies
// EffectCounter.
package httprace
