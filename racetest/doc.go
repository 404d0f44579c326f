// Package racetest is the core of the race engine: it judges whether an
// idempotency gate held when N identical requests reached it at the same
// moment, round after round. It owns what every probe shares:
//
//   - the rounds loop (RunRounds over a Prober), which stops at the run's
//     deadline, and the limits on N and rounds (CheckLimits);
//   - the results (Result, Round, Outcome) and the templates that give
//     each round a fresh key (Template, RoundValues);
//   - the evidence: how a response is classified (Classifier, ReplayMarker),
//     how a round's successes are resolved into wins (Round.Resolve), and the
//     calibration's reading of how the server replays (Calibration);
//   - the verdict (Judge) and the text and JSON output (WriteText,
//     WriteJSON).
//
// The probes that fire rounds live beside it: racetest/httprace writes
// HTTP/1.1 and HTTP/2 bursts on its own connections, racetest/sqlrace races
// a claim statement inside PostgreSQL. racetest/groundtruth has targets that
// count their own effects, against which the probes are judged.
//
// This package imports no probe, no database driver and nothing that needs
// cgo, so that a test library built on the HTTP probe builds with
// CGO_ENABLED=0. It never prints and never exits: a probe returns a Result,
// and the formatters here write it to the io.Writer the caller gives.
package racetest
