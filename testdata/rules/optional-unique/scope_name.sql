-- Unique when present: a role's name is optional, and unique within its
-- scope when it is set ("name is optional; if set, it must be unique within
-- the scope"). Rows without a name have nothing to deduplicate.
CREATE TABLE scopes (id bigint PRIMARY KEY);
CREATE TABLE roles (
    id bigint PRIMARY KEY,
    scope_id bigint NOT NULL REFERENCES scopes (id),
    name text,
    CONSTRAINT roles_scope_id_name_key UNIQUE (scope_id, name) -- want: optional-unique/info "^roles\.roles_scope_id_name_key \(scope_id, name\): name may be NULL, so roles without name are not deduplicated within scope_id; intended when a row may have no name$"
);
