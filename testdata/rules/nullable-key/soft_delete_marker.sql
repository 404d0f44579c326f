-- Issue 25, shape 5: a soft-delete marker in the key. Every live row has
-- deleted_at NULL, so the index compares no two live rows: the canonical
-- hole, whatever the part beside it is (a reference or a name). The first
-- fix makes live rows unique with a partial index over the other parts,
-- swapped in under the old name; NULLS NOT DISTINCT is the other way; NOT
-- NULL, which would end soft delete, is never offered.
CREATE TABLE products (id bigint PRIMARY KEY);
CREATE TABLE variants (
    id bigserial PRIMARY KEY,
    product_id bigint NOT NULL REFERENCES products (id),
    name text NOT NULL,
    code text NOT NULL,
    deleted_at timestamp
);
CREATE UNIQUE INDEX index_variants_on_product_id_and_deleted_at ON variants (product_id, deleted_at); -- want: nullable-key/warning "^variants\.index_variants_on_product_id_and_deleted_at \(product_id, deleted_at\): deleted_at may be NULL, so two variants with the same product_id and no deleted_at are both accepted; deleted_at is NULL on every live row, so among live rows the index enforces nothing \(if live rows may share a key by design, as versions of one resource do, say so with an ignore directive\)$" fix "^replace index_variants_on_product_id_and_deleted_at by a unique index over the live rows \(WHERE deleted_at IS NULL\)$"
CREATE UNIQUE INDEX index_variants_on_name_and_deleted_at ON variants (name, deleted_at); -- want: nullable-key/warning "deleted_at may be NULL, so two variants with the same name and no deleted_at are both accepted; deleted_at is NULL on every live row" fix "^replace index_variants_on_name_and_deleted_at by a unique index over the live rows"

-- The marker in the key under WHERE deleted_at IS NULL: inside the index
-- the part is always NULL, so the index enforces nothing at all.
CREATE UNIQUE INDEX index_variants_on_product_code_live ON variants (product_id, code, deleted_at) WHERE deleted_at IS NULL; -- want: nullable-key/warning "deleted_at is NULL in every row the index covers \(its WHERE keeps only live rows\), so it enforces nothing" fix "^replace index_variants_on_product_code_live by a unique index over the live rows \(WHERE deleted_at IS NULL\)$"

-- A marker by the schema's own live-row test rather than its name: voided_at
-- is what the partial index below tests for live rows.
CREATE TABLE coupons (
    id bigserial PRIMARY KEY,
    code text NOT NULL,
    campaign text NOT NULL,
    voided_at timestamptz
);
CREATE INDEX index_coupons_live ON coupons (campaign) WHERE voided_at IS NULL;
CREATE UNIQUE INDEX index_coupons_on_code_and_voided_at ON coupons (code, voided_at); -- want: nullable-key/warning "voided_at is NULL on every live row" fix "^replace index_coupons_on_code_and_voided_at by a unique index over the live rows \(WHERE voided_at IS NULL\)$"

-- Near miss, the sound form: the marker only in the predicate, silent.
CREATE TABLE bundles (
    id bigserial PRIMARY KEY,
    product_id bigint NOT NULL REFERENCES products (id),
    code text NOT NULL,
    deleted_at timestamp
);
CREATE UNIQUE INDEX index_bundles_on_product_id_and_code ON bundles (product_id, code) WHERE deleted_at IS NULL;

-- Near miss: a nullable time that is no marker (neither named as one nor
-- tested as the live-row test) is the row's own value: beside only its
-- product it is unique when present.
CREATE TABLE releases (
    id bigserial PRIMARY KEY,
    product_id bigint NOT NULL REFERENCES products (id),
    published_at timestamp
);
CREATE UNIQUE INDEX index_releases_on_product_id_and_published_at ON releases (product_id, published_at); -- want: optional-unique/info "published_at may be NULL, so releases without published_at are not deduplicated within product_id"

-- Near miss: a text column named deleted_at is no marker (the type must
-- fit): with a code beside it, it is a value of the row's own and a hole
-- like any other, whose fixes may make it NOT NULL.
CREATE TABLE imports (
    id bigserial PRIMARY KEY,
    code text NOT NULL,
    deleted_at text
);
CREATE UNIQUE INDEX index_imports_on_code_and_deleted_at ON imports (code, deleted_at); -- want: nullable-key/warning "deleted_at may be NULL, so two imports with the same code and no deleted_at are both accepted$" fix "^rebuild index_imports_on_code_and_deleted_at NULLS NOT DISTINCT"

-- The marker in a UNIQUE constraint: a constraint cannot be partial, so the
-- first fix drops it and the live-rows index takes its name.
CREATE TABLE editions (
    id bigserial PRIMARY KEY,
    product_id bigint NOT NULL REFERENCES products (id),
    deleted_at timestamp,
    CONSTRAINT editions_product_deleted_key UNIQUE (product_id, deleted_at) -- want: nullable-key/warning "deleted_at is NULL on every live row" fix "^replace editions_product_deleted_key by a unique index over the live rows"
);
