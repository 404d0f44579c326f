-- A self-reference makes a chain: one successor per version within its tag,
-- and a version without a predecessor is the first of the chain. The
-- reference is never the row's own optional value, so with the tag beside
-- it the index has a hole: two first versions of one tag fork the chain.
-- A NULL here is a value (the first of the chain), so NULLS NOT DISTINCT,
-- not NOT NULL, comes first.
CREATE TABLE tags (id integer PRIMARY KEY);
CREATE TABLE tag_versions (
    id integer PRIMARY KEY,
    tag_id integer NOT NULL REFERENCES tags (id),
    previous_version_id integer REFERENCES tag_versions (id),
    name text NOT NULL
);
CREATE UNIQUE INDEX index_tag_versions_on_tag_id_and_previous_version_id ON tag_versions (tag_id, previous_version_id); -- want: nullable-key/warning "^tag_versions\.index_tag_versions_on_tag_id_and_previous_version_id \(tag_id, previous_version_id\): previous_version_id may be NULL, so two tag_versions with the same tag_id and no previous_version_id are both accepted; if every tag_version has a previous_version_id, declare it NOT NULL: SELECT count\(\*\) FROM tag_versions WHERE previous_version_id IS NULL must be 0$" fix "^rebuild index_tag_versions_on_tag_id_and_previous_version_id NULLS NOT DISTINCT"

-- Re-judged (issue 25): a reference to another table beside an id of the
-- row's own (auth_method_id names no table here) is a hole too. It read as
-- unique when present, "an account not yet linked to a user", but a
-- reference is never the row's optional value: two unlinked accounts of
-- one auth method are duplicates unless the application always links.
CREATE TABLE users (id integer PRIMARY KEY);
CREATE TABLE accounts (
    id integer PRIMARY KEY,
    auth_method_id integer NOT NULL,
    user_id integer REFERENCES users (id)
);
CREATE UNIQUE INDEX accounts_auth_method_user ON accounts (auth_method_id, user_id); -- want: nullable-key/warning "user_id may be NULL, so two accounts with the same auth_method_id and no user_id are both accepted; if every account has a user_id, declare it NOT NULL" fix "NULLS NOT DISTINCT"

-- Re-judged (issue 25): the self-reference beside the row's own optional
-- key (top-level runs have no parent) is a hole through parent_id, and the
-- child key alone is unique when present. The first fix makes the NULL
-- parent count among runs that have a child key, and leaves runs without
-- one alone.
CREATE TABLE workspaces (id integer PRIMARY KEY);
CREATE TABLE runs (
    id integer PRIMARY KEY,
    workspace_id integer NOT NULL REFERENCES workspaces (id),
    parent_id integer REFERENCES runs (id),
    child_key text
);
CREATE UNIQUE INDEX runs_parent_child_key ON runs (workspace_id, parent_id, child_key); -- want: nullable-key/warning "parent_id may be NULL, so two runs with the same workspace_id and child_key and no parent_id are both accepted" fix "^add a NULLS NOT DISTINCT unique index for rows where child_key is present" optional-unique/info "child_key may be NULL, so runs without child_key are not deduplicated within workspace_id and parent_id"
