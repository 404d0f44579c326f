-- The near miss of optional-unique/one_primary.sql: one more nullable part,
-- the remote's url. Rows without is_primary still have their url, so two
-- non-primary rows with the same url are duplicates: a hole through
-- is_primary. The url stays unique when present.
CREATE TABLE repositories (id bigint PRIMARY KEY);
CREATE TABLE repository_remotes (
    id bigint PRIMARY KEY,
    repo_id bigint NOT NULL REFERENCES repositories (id),
    url text,
    is_primary boolean CHECK (is_primary)
);
CREATE UNIQUE INDEX repository_remotes_url ON repository_remotes (repo_id, url, is_primary); -- want: nullable-key/warning "^repository_remotes\.repository_remotes_url \(repo_id, url, is_primary\): is_primary may be NULL, so two repository_remotes with the same repo_id and url and no is_primary are both accepted$" optional-unique/info "url may be NULL, so repository_remotes without url are not deduplicated within repo_id and is_primary"
