// Package pgfake is a test kit: a fake PostgreSQL server on a loopback port
// that completes the start-up handshake as a real one does (no TLS, trust
// authentication, the parameters pgx reads) and then stops answering, the
// way a hung server or a stalled proxy does. It can answer a number of
// simple-protocol queries first, so that a test can put the stall in a later
// phase of a run. It records what clients sent, so that a test can tell
// whether a client kept talking to a server that had gone quiet.
//
// It is for the client's bounds (timeouts, deadlines, lost connections);
// everything a test wants to learn about SQL is asked of the real server
// (internal/testkit/pgtest).
package pgfake

import (
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// ServerVersion is the version the fake reports at start-up.
const ServerVersion = "15.4 (idemcheck fake)"

// Server is a fake server listening on 127.0.0.1.
type Server struct {
	// Host and Port are where it listens.
	Host string
	Port int
	// answer is how many simple-protocol queries each connection gets
	// answered (with an empty result) before the server goes quiet, or,
	// when terminate is set, ends the connection as pg_terminate_backend
	// does.
	answer    int
	terminate bool

	*loopback
	mu sync.Mutex
	// startups counts completed handshakes; sent counts the messages
	// received after them, by kind ('Q' for a simple query, 'P' for a
	// Parse ...).
	startups int
	sent     map[byte]int
}

// Stalling starts a server that completes every handshake, answers the
// first answer simple-protocol queries of each connection with an empty
// result, and then never answers again (it keeps reading, so a client's
// writes do not block). It is closed when t ends.
func Stalling(t testing.TB, answer int) *Server {
	t.Helper()
	l := listen(t)
	s := &Server{Host: l.host, Port: l.port, answer: answer, loopback: l, sent: map[byte]int{}}
	l.serve(func(c net.Conn) {
		defer c.Close()
		s.serve(c)
	})
	return s
}

// Terminating starts a server like Stalling's that, instead of going
// quiet, answers the next message after the first answer queries as a
// terminated backend does (FATAL 57P01, "terminating connection due to
// administrator command") and closes the connection.
func Terminating(t testing.TB, answer int) *Server {
	t.Helper()
	s := Stalling(t, answer)
	s.terminate = true
	return s
}

// DSN is a connection string for the fake, for database db.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@%s:%d/%s?sslmode=disable", s.Host, s.Port, db)
}

// Startups counts the handshakes completed so far.
func (s *Server) Startups() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startups
}

// Sent counts the messages of one kind clients sent after their handshakes
// ('Q' simple query, 'P' parse, 'X' terminate).
func (s *Server) Sent(kind byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[kind]
}

// serve is one connection: the handshake, the answered queries, silence.
func (s *Server) serve(c net.Conn) {
	be := pgproto3.NewBackend(c, c)
startup:
	for {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return
		}
		switch msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := c.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		case *pgproto3.CancelRequest:
			return // a cancel is heard and ignored, as a hung server would
		}
		break startup
	}
	be.Send(&pgproto3.AuthenticationOk{})
	for _, p := range [][2]string{
		{"server_version", ServerVersion}, {"server_encoding", "UTF8"}, {"client_encoding", "UTF8"},
		{"standard_conforming_strings", "on"}, {"DateStyle", "ISO, MDY"}, {"integer_datetimes", "on"},
		{"TimeZone", "UTC"},
	} {
		be.Send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	be.Send(&pgproto3.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	s.mu.Lock()
	s.startups++
	s.mu.Unlock()
	answered := 0
	for {
		msg, err := be.Receive()
		if err != nil {
			return
		}
		kind := messageKind(msg)
		s.mu.Lock()
		s.sent[kind]++
		s.mu.Unlock()
		switch {
		case kind == 'Q' && answered < s.answer:
			answered++
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SET")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'T'})
			if be.Flush() != nil {
				return
			}
		case s.terminate && (kind == 'Q' || kind == 'S'):
			be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "57P01",
				Message: "terminating connection due to administrator command"})
			_ = be.Flush()
			return
		}
	}
}

// messageKind is the protocol's type byte of a frontend message.
func messageKind(msg pgproto3.FrontendMessage) byte {
	switch msg.(type) {
	case *pgproto3.Query:
		return 'Q'
	case *pgproto3.Parse:
		return 'P'
	case *pgproto3.Bind:
		return 'B'
	case *pgproto3.Describe:
		return 'D'
	case *pgproto3.Execute:
		return 'E'
	case *pgproto3.Sync:
		return 'S'
	case *pgproto3.Terminate:
		return 'X'
	}
	return '?'
}
