-- A partial index whose predicate is about something else.
CREATE TABLE handles (
    id bigint PRIMARY KEY,
    name text,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX handles_name_live ON handles (name) WHERE deleted_at IS NULL; -- want: optional-unique "name may be NULL, so the index is unique when present: any number of handles with no name are accepted among rows where deleted_at IS NULL"
