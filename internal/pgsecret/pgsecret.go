// Package pgsecret keeps PostgreSQL passwords out of text meant for people.
// Every error idemcheck prints about a connection (inspect, race sql, the
// --effect-sql oracle of race http) goes through one Scrubber, built from
// everything that can hold the password: the connection string as given, in
// either of its forms and encoded or not, PGPASSWORD, and the password pgx
// settled on (which may come from ~/.pgpass or a service file). A server that
// echoes a setting back in its error ("database \"...\" does not exist") is
// scrubbed the same way.
//
// It is pure Go, so that the race probes stay free of cgo and the live reader
// and the probes share it.
package pgsecret

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Mask is what a password becomes.
const Mask = "********"

// minSecret is the shortest password worth blanking out: replacing a one- or
// two-letter password everywhere would mangle the message and hide nothing.
const minSecret = 3

var (
	urlPassword = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://[^:@/]*:([^@]*)@`)
	kvPassword  = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|[^\s]*)`)
)

// Scrubber removes every password it was told of from text.
type Scrubber struct{ secrets []string }

// New reads the passwords out of a connection string (a postgres:// URL or
// key=value settings; any number of password= settings) and adds the others
// given (PGPASSWORD, the parsed configuration's password).
func New(dsn string, others ...string) *Scrubber {
	s := &Scrubber{}
	for _, o := range others {
		s.Add(o)
	}
	if m := urlPassword.FindStringSubmatch(dsn); m != nil {
		s.Add(m[1])
		if dec, err := url.PathUnescape(m[1]); err == nil {
			s.Add(dec)
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		v := m[1]
		s.Add(v)
		if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
			s.Add(strings.ReplaceAll(v[1:len(v)-1], `\'`, `'`))
		}
		if dec, err := url.QueryUnescape(v); err == nil {
			s.Add(dec)
		}
	}
	return s
}

// ForDSN is New with the password pgx itself will send for dsn added: the
// one in the string, PGPASSWORD, or the matching ~/.pgpass line.
func ForDSN(dsn string, others ...string) *Scrubber {
	s := New(dsn, others...)
	if cfg, err := pgx.ParseConfig(dsn); err == nil {
		s.Add(cfg.Password)
	}
	return s
}

// Add makes s blank secret out too.
func (s *Scrubber) Add(secret string) {
	if len(secret) >= minSecret {
		s.secrets = append(s.secrets, secret)
	}
}

// Clean is text with every known password replaced by Mask. A nil Scrubber
// returns text unchanged.
func (s *Scrubber) Clean(text string) string {
	if s == nil {
		return text
	}
	for _, secret := range s.secrets {
		text = strings.ReplaceAll(text, secret, Mask)
	}
	return text
}

// Error is err with its text cleaned, nil for nil.
func (s *Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	return scrubbed{text: s.Clean(err.Error()), err: err}
}

// scrubbed keeps the original error for errors.Is and errors.As (the
// SQLSTATE, a timeout) while printing only the cleaned text.
type scrubbed struct {
	text string
	err  error
}

func (e scrubbed) Error() string { return e.text }
func (e scrubbed) Unwrap() error { return e.err }
