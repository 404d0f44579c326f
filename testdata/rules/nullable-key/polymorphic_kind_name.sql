-- Issue 25, shape 4: a polymorphic parent, a nullable discriminator and a
-- nullable name, written by find_or_create_by over all four. The parent
-- is a reference and its NULL rows keep the kind and the name; with the
-- kind NULL the name is still an identity: holes through the parent and
-- the kind. The name beside only the parent and the kind is unique when
-- present, so the first fix makes NULL count among rows with a name.
CREATE TABLE custom_fields (
    id bigserial PRIMARY KEY,
    owner_type character varying,
    owner_id bigint,
    kind character varying,
    name character varying
);
CREATE UNIQUE INDEX index_custom_fields_on_owner_kind_name ON custom_fields (owner_type, owner_id, kind, name); -- want: nullable-key/warning "owner_type, owner_id and kind may be NULL, so two custom_fields with the same name and no owner_type \(or no owner_id, or no kind\) are both accepted; if every custom_field has an owner_type and an owner_id" fix "^add a NULLS NOT DISTINCT unique index for rows where name is present" optional-unique/info "name may be NULL, so custom_fields without name are not deduplicated within owner_type, owner_id and kind"

-- Near miss: owner and kind required, the name alone optional.
CREATE TABLE custom_labels (
    id bigserial PRIMARY KEY,
    owner_type character varying NOT NULL,
    owner_id bigint NOT NULL,
    kind character varying NOT NULL,
    name character varying
);
CREATE UNIQUE INDEX index_custom_labels_on_owner_kind_name ON custom_labels (owner_type, owner_id, kind, name); -- want: optional-unique/info "name may be NULL, so custom_labels without name are not deduplicated within owner_type, owner_id and kind"
