{{ if .AuditLog }}
CREATE TABLE {{ .Namespace }}.audit_log (
    id bigserial PRIMARY KEY,
    request_id text
);
CREATE UNIQUE INDEX audit_log_request_key ON {{ .Namespace }}.audit_log (request_id);
{{ end }}
CREATE INDEX sessions_user_idx ON {{ .Namespace }}.sessions (user_id);
