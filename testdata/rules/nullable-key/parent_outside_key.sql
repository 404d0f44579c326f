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
    CONSTRAINT error_group_states_env_task_fingerprint_key UNIQUE (environment_id, task_identifier, error_fingerprint) -- want: nullable-key/warning "^error_group_states\.error_group_states_env_task_fingerprint_key \(environment_id, task_identifier, error_fingerprint\): environment_id may be NULL, so two error_group_states with the same project_id, task_identifier and error_fingerprint and no environment_id are both accepted$"
);

-- Near miss: the key already names the project, so nothing outside it
-- scopes the rows without an environment.
CREATE TABLE environment_slugs (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id),
    project_id text NOT NULL REFERENCES projects (id),
    environment_id text REFERENCES environments (id),
    slug text NOT NULL,
    CONSTRAINT environment_slugs_project_slug_env_key UNIQUE (project_id, slug, environment_id) -- want: nullable-key/warning "^environment_slugs\.environment_slugs_project_slug_env_key \(project_id, slug, environment_id\): environment_id may be NULL, so two environment_slugs with the same project_id and slug and no environment_id are both accepted$"
);
