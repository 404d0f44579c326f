-- A self-reference makes a chain: one successor per version within its tag,
-- and a version without a predecessor is the first of the chain. Two first
-- versions of one tag fork it, so the NULL rows are duplicates although
-- only a foreign key is left beside the part.
CREATE TABLE tags (id integer PRIMARY KEY);
CREATE TABLE tag_versions (
    id integer PRIMARY KEY,
    tag_id integer NOT NULL REFERENCES tags (id),
    previous_version_id integer REFERENCES tag_versions (id),
    name text NOT NULL
);
CREATE UNIQUE INDEX index_tag_versions_on_tag_id_and_previous_version_id ON tag_versions (tag_id, previous_version_id); -- want: nullable-key/warning "^tag_versions\.index_tag_versions_on_tag_id_and_previous_version_id \(tag_id, previous_version_id\): previous_version_id may be NULL, so two tag_versions with the same tag_id and no previous_version_id are both accepted$"

-- Near miss: a reference to another table beside the scope is a link that
-- may be missing (an account not yet linked to a user): unique when
-- present.
CREATE TABLE users (id integer PRIMARY KEY);
CREATE TABLE accounts (
    id integer PRIMARY KEY,
    auth_method_id integer NOT NULL,
    user_id integer REFERENCES users (id)
);
CREATE UNIQUE INDEX accounts_auth_method_user ON accounts (auth_method_id, user_id); -- want: optional-unique/info "user_id may be NULL, so accounts without user_id are not deduplicated within auth_method_id"

-- Near miss: the self-reference is a parent scope for the row's own
-- optional key, and may be missing too (top-level runs): no chain.
CREATE TABLE workspaces (id integer PRIMARY KEY);
CREATE TABLE runs (
    id integer PRIMARY KEY,
    workspace_id integer NOT NULL REFERENCES workspaces (id),
    parent_id integer REFERENCES runs (id),
    child_key text
);
CREATE UNIQUE INDEX runs_parent_child_key ON runs (workspace_id, parent_id, child_key); -- want: optional-unique/info "parent_id and child_key may be NULL, so runs without parent_id \(or without child_key\) are not deduplicated within workspace_id"
