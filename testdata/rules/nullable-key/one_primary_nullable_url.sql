-- The near miss of optional-unique/one_primary.sql: the url joins the key.
-- Rows without is_primary still have their url, so two non-primary remotes
-- with the same url are duplicates: a hole through is_primary.
CREATE TABLE repositories (id bigint PRIMARY KEY);
CREATE TABLE repository_remotes (
    id bigint PRIMARY KEY,
    repo_id bigint NOT NULL REFERENCES repositories (id),
    url text NOT NULL,
    is_primary boolean CHECK (is_primary)
);
CREATE UNIQUE INDEX repository_remotes_url ON repository_remotes (repo_id, url, is_primary); -- want: nullable-key/warning "^repository_remotes\.repository_remotes_url \(repo_id, url, is_primary\): is_primary may be NULL, so two repository_remotes with the same repo_id and url and no is_primary are both accepted$"

-- A mirror's url is optional: a non-primary mirror keeps only a url that
-- may be missing too, the mirror's own optional key within its repository,
-- so the index reads unique when present through both.
CREATE TABLE repository_mirrors (
    id bigint PRIMARY KEY,
    repo_id bigint NOT NULL REFERENCES repositories (id),
    url text,
    is_primary boolean CHECK (is_primary)
);
CREATE UNIQUE INDEX repository_mirrors_url ON repository_mirrors (repo_id, url, is_primary); -- want: optional-unique/info "url and is_primary may be NULL, so repository_mirrors without url \(or without is_primary\) are not deduplicated within repo_id"
