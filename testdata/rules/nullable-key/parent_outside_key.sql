-- An error state for every environment of a project has no environment:
-- two such rows are duplicates only within one project, which the key
-- does not name. The message says so, and the fix keeps the project:
-- NULLS NOT DISTINCT, or a split over the key alone, would join projects.
CREATE TABLE organizations (id text PRIMARY KEY);
CREATE TABLE projects (id text PRIMARY KEY, organization_id text NOT NULL REFERENCES organizations (id));
CREATE TABLE environments (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id),
    project_id text NOT NULL REFERENCES projects (id)
);
CREATE TABLE error_group_states (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id),
    project_id text NOT NULL REFERENCES projects (id),
    environment_id text REFERENCES environments (id),
    task_identifier text NOT NULL,
    error_fingerprint text NOT NULL,
    CONSTRAINT error_group_states_env_task_fingerprint_key UNIQUE (environment_id, task_identifier, error_fingerprint) -- want: nullable-key/warning "^error_group_states\.error_group_states_env_task_fingerprint_key \(environment_id, task_identifier, error_fingerprint\): environment_id may be NULL, so two error_group_states with the same project_id, task_identifier and error_fingerprint and no environment_id are both accepted; if every error_group_state has an environment_id, declare it NOT NULL" fix "^add a unique index for rows where environment_id is NULL, per project_id$"
);

-- Near miss: the key already names the project, so nothing outside it
-- scopes the rows without an environment.
CREATE TABLE environment_slugs (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id),
    project_id text NOT NULL REFERENCES projects (id),
    environment_id text REFERENCES environments (id),
    slug text NOT NULL,
    CONSTRAINT environment_slugs_project_slug_env_key UNIQUE (project_id, slug, environment_id) -- want: nullable-key/warning "^environment_slugs\.environment_slugs_project_slug_env_key \(project_id, slug, environment_id\): environment_id may be NULL, so two environment_slugs with the same project_id and slug and no environment_id are both accepted; if every environment_slug has an environment_id, declare it NOT NULL: SELECT count\(\*\) FROM environment_slugs WHERE environment_id IS NULL must be 0$"
);

-- Near miss: a column that records who made the row is no parent, even
-- when the referenced row has one of the same kind.
CREATE TABLE users (id text PRIMARY KEY);
CREATE TABLE folders (id text PRIMARY KEY, created_by_id text NOT NULL REFERENCES users (id));
CREATE TABLE documents (
    id text PRIMARY KEY,
    created_by_id text NOT NULL REFERENCES users (id),
    folder_id text REFERENCES folders (id),
    path text NOT NULL,
    CONSTRAINT documents_folder_path_key UNIQUE (folder_id, path) -- want: nullable-key/warning "^documents\.documents_folder_path_key \(folder_id, path\): folder_id may be NULL, so two documents with the same path and no folder_id are both accepted; if every document has a folder_id, declare it NOT NULL: SELECT count\(\*\) FROM documents WHERE folder_id IS NULL must be 0$"
);
