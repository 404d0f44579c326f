-- The near miss of optional-unique/scope_name.sql: one more nullable part, a
-- tenant (NULL means a global role), beside a name every role has. A global
-- role without an organization still has its scope and its name, so two of
-- them are duplicates: a hole.
CREATE TABLE organizations (id bigint PRIMARY KEY);
CREATE TABLE scopes (id bigint PRIMARY KEY);
CREATE TABLE roles (
    id bigint PRIMARY KEY,
    organization_id bigint REFERENCES organizations (id),
    scope_id bigint NOT NULL REFERENCES scopes (id),
    name text NOT NULL,
    UNIQUE (organization_id, scope_id, name) -- want: nullable-key/warning "^roles\.roles_organization_id_scope_id_name_key \(organization_id, scope_id, name\): organization_id may be NULL, so two roles with the same scope_id and name and no organization_id are both accepted; if every role has an organization_id, declare it NOT NULL: SELECT count\(\*\) FROM roles WHERE organization_id IS NULL must be 0$" fix "^rebuild roles_organization_id_scope_id_name_key NULLS NOT DISTINCT"
);

-- Re-judged (issue 25): when the name is optional too, this read as unique
-- when present through both ("the name is the row's own optional key
-- within its parents"). The organization is a scope, never the row's own
-- optional value: a global label that keeps its scope and a name is a
-- duplicate of another, a hole through organization_id. The name alone is
-- unique when present. A value beside the optional name is a hole through
-- both: a label without a version is still the label.
CREATE TABLE labels (
    id bigint PRIMARY KEY,
    organization_id bigint REFERENCES organizations (id),
    scope_id bigint NOT NULL REFERENCES scopes (id),
    name text,
    UNIQUE (organization_id, scope_id, name) -- want: nullable-key/warning "^labels\.labels_organization_id_scope_id_name_key \(organization_id, scope_id, name\): organization_id may be NULL, so two labels with the same scope_id and name and no organization_id are both accepted" fix "^add a NULLS NOT DISTINCT unique index for rows where name is present" optional-unique/info "name may be NULL, so labels without name are not deduplicated within organization_id and scope_id"
);
CREATE TABLE releases (
    id bigint PRIMARY KEY,
    scope_id bigint NOT NULL REFERENCES scopes (id),
    version text,
    name text,
    UNIQUE (scope_id, version, name) -- want: nullable-key/warning "version and name may be NULL, so two releases with the same scope_id and no version \(or no name\) are both accepted"
);
