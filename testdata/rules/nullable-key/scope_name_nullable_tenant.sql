-- The near miss of optional-unique/scope_name.sql: one more nullable part, a
-- tenant (NULL means a global role). A global role without an organization
-- still has its scope and name, so two of them are duplicates: a hole. The
-- name stays unique when present, and the fixes leave rows without it alone.
CREATE TABLE organizations (id bigint PRIMARY KEY);
CREATE TABLE scopes (id bigint PRIMARY KEY);
CREATE TABLE roles (
    id bigint PRIMARY KEY,
    organization_id bigint REFERENCES organizations (id),
    scope_id bigint NOT NULL REFERENCES scopes (id),
    name text,
    UNIQUE (organization_id, scope_id, name) -- want: nullable-key/warning "^roles\.roles_organization_id_scope_id_name_key \(organization_id, scope_id, name\): organization_id may be NULL, so two roles with the same scope_id and name and no organization_id are both accepted$" optional-unique/info "name may be NULL, so roles without name are not deduplicated within organization_id and scope_id"
);
