-- Silent: the single key part cannot be NULL.
CREATE TABLE tenants (
    id bigint PRIMARY KEY,
    slug text NOT NULL UNIQUE,
    code text,
    CHECK (code IS NOT NULL)
);
CREATE UNIQUE INDEX tenants_code ON tenants (code);
