-- The row's own optional key under an optional parent: rows without the
-- parent keep only a key that may be missing too, so the index reads
-- "unique when present" through both. Each of these shapes was reported as
-- a hole before, and is not one in the schemas it comes from.

-- A child's key under its parent step: runs scheduled by hand have neither.
CREATE TABLE workflow_versions (id uuid PRIMARY KEY);
CREATE TABLE step_runs (id uuid PRIMARY KEY);
CREATE TABLE scheduled_runs (
    id uuid PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES workflow_versions (id),
    parent_step_run_id uuid REFERENCES step_runs (id) ON DELETE SET NULL,
    child_key text,
    CONSTRAINT scheduled_runs_parent_child_key UNIQUE (parent_id, parent_step_run_id, child_key) -- want: optional-unique/info "^scheduled_runs\.scheduled_runs_parent_child_key \(parent_id, parent_step_run_id, child_key\): parent_step_run_id and child_key may be NULL, so scheduled_runs without parent_step_run_id \(or without child_key\) are not deduplicated within parent_id"
);

-- The same under a parent that may be missing too (top-level runs).
CREATE TABLE workflow_runs (
    id uuid PRIMARY KEY,
    parent_id uuid REFERENCES workflow_runs (id) ON DELETE SET NULL,
    parent_step_run_id uuid REFERENCES step_runs (id) ON DELETE SET NULL,
    child_key text
);
CREATE UNIQUE INDEX workflow_runs_parent_child_key ON workflow_runs (parent_id, parent_step_run_id, child_key); -- want: optional-unique/info "parent_id, parent_step_run_id and child_key may be NULL, so workflow_runs without parent_id \(or without parent_step_run_id, or without child_key\) are not deduplicated; intended"

-- A number drafts do not have yet, under a customer the schema leaves
-- optional.
CREATE TABLE customers (id uuid PRIMARY KEY);
CREATE TABLE billing_entities (id uuid PRIMARY KEY);
CREATE TABLE invoices (
    id uuid PRIMARY KEY,
    customer_id uuid REFERENCES customers (id),
    billing_entity_id uuid NOT NULL REFERENCES billing_entities (id),
    sequential_id integer
);
CREATE UNIQUE INDEX invoices_customer_entity_sequential ON invoices (customer_id, billing_entity_id, sequential_id); -- want: optional-unique/info "customer_id and sequential_id may be NULL, so invoices without customer_id \(or without sequential_id\) are not deduplicated within billing_entity_id"

-- An item's number within its namespace and type, the namespace not
-- declared NOT NULL.
CREATE TABLE work_items (
    id bigint PRIMARY KEY,
    type text NOT NULL,
    iid integer,
    namespace_id bigint
);
CREATE UNIQUE INDEX index_work_items_on_namespace_id_and_type_and_iid ON work_items (namespace_id, type, iid); -- want: optional-unique/info "namespace_id and iid may be NULL, so work_items without namespace_id \(or without iid\) are not deduplicated within type"

-- A code unique per customer and category, both optional.
CREATE TYPE connection_category AS ENUM ('accounting', 'crm');
CREATE TABLE integration_customers (
    id uuid PRIMARY KEY,
    customer_id uuid NOT NULL REFERENCES customers (id),
    category connection_category,
    code text
);
CREATE UNIQUE INDEX integration_customers_customer_category_code ON integration_customers (customer_id, category, code); -- want: optional-unique/info "category and code may be NULL, so integration_customers without category \(or without code\) are not deduplicated within customer_id"

-- An identity provider's issuer and client, unset while the method is
-- being configured.
CREATE TABLE auth_methods (id text PRIMARY KEY);
CREATE TABLE oidc_methods (
    id text PRIMARY KEY,
    scope_id text NOT NULL REFERENCES auth_methods (id),
    issuer text,
    client_id text
);
CREATE UNIQUE INDEX oidc_methods_scope_issuer_client ON oidc_methods (scope_id, issuer, client_id); -- want: optional-unique/info "issuer and client_id may be NULL, so oidc_methods without issuer \(or without client_id\) are not deduplicated within scope_id"

-- Near misses, holes at warning.
-- The child's key is required: a run without a parent step still has it.
CREATE TABLE spawned_runs (
    id uuid PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES workflow_versions (id),
    parent_step_run_id uuid REFERENCES step_runs (id),
    child_key text NOT NULL,
    CONSTRAINT spawned_runs_parent_child_key UNIQUE (parent_id, parent_step_run_id, child_key) -- want: nullable-key/warning "parent_step_run_id may be NULL, so two spawned_runs with the same parent_id and child_key and no parent_step_run_id are both accepted$"
);
-- Nothing scopes an author: a name and an email that may each be missing
-- are the whole key, and an author without a name is still the email.
CREATE TABLE commit_users (
    id bigint PRIMARY KEY,
    organization_id bigint,
    name text,
    email text
);
CREATE UNIQUE INDEX commit_users_name_email ON commit_users (name, email); -- want: nullable-key/warning "name and email may be NULL, so two commit_users with no name \(or no email\) are both accepted"
-- Under an optional organization the name and email are still the key
-- together: the organization's NULL rows keep them, and each one's NULL rows
-- keep the other, a value.
CREATE UNIQUE INDEX commit_users_org_name_email ON commit_users (organization_id, name, email); -- want: nullable-key/warning "organization_id, name and email may be NULL, so two commit_users with no organization_id \(or no name, or no email\) are both accepted"
