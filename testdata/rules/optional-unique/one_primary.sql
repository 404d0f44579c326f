-- Unique when present: is_primary is TRUE or NULL, the idiom for "at most
-- one primary remote per repository".
CREATE TABLE repositories (id bigint PRIMARY KEY);
CREATE TABLE repository_remotes (
    id bigint PRIMARY KEY,
    repo_id bigint NOT NULL REFERENCES repositories (id),
    url text NOT NULL,
    is_primary boolean CHECK (is_primary)
);
CREATE UNIQUE INDEX repository_remotes_one_primary ON repository_remotes (repo_id, is_primary); -- want: optional-unique/info "^repository_remotes\.repository_remotes_one_primary \(repo_id, is_primary\): is_primary may be NULL, so repository_remotes without is_primary are not deduplicated within repo_id; intended when is_primary is TRUE or NULL: then at most one row per repo_id has it TRUE$"
