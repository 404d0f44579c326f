-- Issue 25, shape 2: an owner key, one row per owner. The key is only the
-- owner reference, its type and its id: with owner_id NULL two identical
-- rows pass. Every key part is a reference, so NOT NULL comes first.
CREATE TABLE preferences (
    id bigserial PRIMARY KEY,
    owner_type character varying,
    owner_id bigint,
    settings jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX index_preferences_on_owner_type_and_owner_id ON preferences (owner_type, owner_id); -- want: nullable-key/warning "owner_type and owner_id may be NULL, so two preferences with no owner_type \(or no owner_id\) are both accepted; if every preference has an owner_type and an owner_id, declare them NOT NULL" fix "^make owner_type and owner_id NOT NULL$"

-- The type required, the id not: the same hole through owner_id.
CREATE TABLE avatars (
    id bigserial PRIMARY KEY,
    owner_type character varying NOT NULL,
    owner_id bigint
);
CREATE UNIQUE INDEX index_avatars_on_owner ON avatars (owner_type, owner_id); -- want: nullable-key/warning "owner_id may be NULL, so two avatars with the same owner_type and no owner_id are both accepted" fix "^make owner_id NOT NULL$"

-- Near miss: a required owner, silent.
CREATE TABLE profiles (
    id bigserial PRIMARY KEY,
    owner_type character varying NOT NULL,
    owner_id bigint NOT NULL
);
CREATE UNIQUE INDEX index_profiles_on_owner ON profiles (owner_type, owner_id);

-- Near miss: an owner id with no type column beside it and no table of its
-- name is an id of the row's own: a one-part index, unique when present.
CREATE TABLE handles (
    id bigserial PRIMARY KEY,
    owner_id bigint
);
CREATE UNIQUE INDEX index_handles_on_owner_id ON handles (owner_id); -- want: optional-unique/info "owner_id may be NULL, so the index is unique when present"
