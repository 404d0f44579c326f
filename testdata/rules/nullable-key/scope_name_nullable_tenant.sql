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
    UNIQUE (organization_id, scope_id, name) -- want: nullable-key/warning "^roles\.roles_organization_id_scope_id_name_key \(organization_id, scope_id, name\): organization_id may be NULL, so two roles with the same scope_id and name and no organization_id are both accepted$"
);

-- When the name is optional too, a role without an organization keeps only
-- a name that may itself be missing: the name is the row's own optional key
-- within its parents, and the index reads unique when present through both
-- (optional-unique/optional_key_under_optional_parent.sql has the shapes
-- real schemas use). A value beside the optional name is different: a
-- label without a version is still the label.
CREATE TABLE labels (
    id bigint PRIMARY KEY,
    organization_id bigint REFERENCES organizations (id),
    scope_id bigint NOT NULL REFERENCES scopes (id),
    name text,
    UNIQUE (organization_id, scope_id, name) -- want: optional-unique/info "^labels\.labels_organization_id_scope_id_name_key \(organization_id, scope_id, name\): organization_id and name may be NULL, so labels without organization_id \(or without name\) are not deduplicated within scope_id"
);
CREATE TABLE releases (
    id bigint PRIMARY KEY,
    scope_id bigint NOT NULL REFERENCES scopes (id),
    version text,
    name text,
    UNIQUE (scope_id, version, name) -- want: nullable-key/warning "version and name may be NULL, so two releases with the same scope_id and no version \(or no name\) are both accepted"
);
