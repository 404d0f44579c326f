package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// A templated tree is linted in full. Without values every placeholder
// gets a stand-in identifier (a placeholder inside a quoted identifier
// included) and a note, the statements of a control action are skipped and
// counted, and nothing is an input error.
func TestLintTemplateStandIns(t *testing.T) {
	root := layoutFixture("templated")
	r := run(t, "lint", "-v", "--color", "never", root)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout,
		"20240110120000_session_keys.up.sql:3:1: warning nullable-key",
		"namespace.sessions.sessions_refresh_token_key (refresh_token, client_id)",
		`note: template placeholder {{ index .Options "Namespace" }} has no value: the stand-in namespace is used; pass --var Namespace=VALUE (2 places in this file)`,
		"20240301090000_audit_log.up.sql:2:1: note: skipped the statement starting at line 2: it is inside the template control action {{ if .AuditLog }} at line 1, and it needs values (--var NAME=VALUE)",
		"in 3 files (5 statements), 2 statements skipped")
	assertLacks(t, "stdout", r.stdout, "input error", "syntax error")
}

// --var fills the placeholders before parsing, Go templates as top-level
// fields and under .Options; the configuration's vars: do the same, and
// --var wins over them.
func TestLintTemplateVars(t *testing.T) {
	root := layoutFixture("templated")
	r := run(t, "lint", "--color", "never", "--var", "Namespace=auth", "--var", "AuditLog=on", root)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout,
		"auth.sessions.sessions_refresh_token_key",
		"20240301090000_audit_log.up.sql:6:1: info optional-unique",
		"auth.audit_log.audit_log_request_key",
		"in 3 files (7 statements) —")
	assertLacks(t, "stdout", r.stdout, "namespace.", "has no value", "skipped")

	dir := t.TempDir()
	cfg := filepath.Join(dir, ".idemcheck.yaml")
	if err := os.WriteFile(cfg, []byte("vars:\n  Namespace: billing\n  AuditLog: on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "lint", "--config", cfg, "--color", "never", root)
	assertContains(t, "stdout", r.stdout, "billing.sessions.sessions_refresh_token_key", "billing.audit_log.audit_log_request_key")
	r = run(t, "lint", "--config", cfg, "--var", "Namespace=auth", "--color", "never", root)
	assertContains(t, "stdout", r.stdout, "auth.sessions.sessions_refresh_token_key", "auth.audit_log.audit_log_request_key")

	r = run(t, "lint", "--var", "Namespace", root)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, `--var "Namespace": want NAME=VALUE`)
}
