package pgsecret

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestScrubber(t *testing.T) {
	s := New("postgres://u:p%40ss%21word@h/db")
	if got := s.Clean("x p@ss!word y p%40ss%21word"); strings.Contains(got, "p@ss!word") || strings.Contains(got, "p%40ss%21word") {
		t.Errorf("URL password survived: %s", got)
	}
	s = New(`host=h password='it\'s quoted' user=u`, "envsecret")
	for _, secret := range []string{"envsecret", `it's quoted`, `'it\'s quoted'`} {
		if got := s.Clean("before " + secret + " after"); strings.Contains(got, secret) {
			t.Errorf("%q survived: %s", secret, got)
		}
	}
	// A short password is left alone: blanking "ab" everywhere hides nothing.
	if got := New("postgres://u:ab@h/db").Clean("tab"); got != "tab" {
		t.Errorf("a two-letter password mangled the text: %q", got)
	}
	var none *Scrubber
	if got := none.Clean("text"); got != "text" {
		t.Errorf("nil scrubber: %q", got)
	}
}

func TestErrorKeepsTheCause(t *testing.T) {
	cause := errors.New("database \"s3cret-pw\" does not exist")
	err := New("postgres://u:s3cret-pw@h/s3cret-pw").Error(fmt.Errorf("connecting: %w", cause))
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("the password is in %q", err)
	}
	if !errors.Is(err, cause) {
		t.Error("the cause is lost")
	}
}

// ForDSN knows the password pgx will send even when the string has none.
func TestForDSNReadsPGPASSWORD(t *testing.T) {
	t.Setenv("PGPASSWORD", "from-the-environment")
	if got := ForDSN("host=127.0.0.1 user=u").Clean("x from-the-environment y"); strings.Contains(got, "from-the-environment") {
		t.Errorf("PGPASSWORD survived: %s", got)
	}
}
