-- Issue 25, shape 8: an *_id that is the row's own id, not a reference.
-- media_id names a file within its origin server, and key_id a key within
-- its server: no foreign key, no table of that name. Both parts are values
-- of the row's own and each is left beside the other's NULL rows, so the
-- hole is through both, and the fix is for both (a partial index on the
-- server column alone fixes nothing).
CREATE TABLE remote_files (
    id bigserial PRIMARY KEY,
    origin text,
    media_id text,
    fetched_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX remote_files_origin_media ON remote_files (origin, media_id); -- want: nullable-key/warning "^remote_files\.remote_files_origin_media \(origin, media_id\): origin and media_id may be NULL, so two remote_files with no origin \(or no media_id\) are both accepted$" fix "^rebuild remote_files_origin_media NULLS NOT DISTINCT"
CREATE TABLE signing_keys (
    id bigserial PRIMARY KEY,
    server text,
    key_id text,
    public_key text NOT NULL
);
CREATE UNIQUE INDEX signing_keys_server_key ON signing_keys (server, key_id); -- want: nullable-key/warning "server and key_id may be NULL, so two signing_keys with no server \(or no key_id\) are both accepted$"

-- Near miss: with a table of its name, photo_id is a reference: a hole
-- through it, and the origin beside only that reference is unique when
-- present.
CREATE TABLE photos (id text PRIMARY KEY);
CREATE TABLE photo_copies (
    id bigserial PRIMARY KEY,
    origin text,
    photo_id text
);
CREATE UNIQUE INDEX photo_copies_origin_photo ON photo_copies (origin, photo_id); -- want: nullable-key/warning "photo_id may be NULL, so two photo_copies with the same origin and no photo_id are both accepted; if every photo_copy has a photo_id" optional-unique/info "origin may be NULL, so photo_copies without origin are not deduplicated within photo_id"
