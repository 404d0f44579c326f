-- The row's own optional key under an optional parent. Issue 13 read each
-- of these as unique when present through both parts ("rows without the
-- parent keep only a key that may be missing too"). Re-judged (issue 25):
-- a parent, a scope or another reference is never the row's own optional
-- value, so with anything beside it its NULL rows make a hole; the row's
-- own key beside only parents and kinds is still unique when present.
-- Each index below now has both findings, and the first fix leaves rows
-- without the optional key alone.

-- A child's key under its parent step: runs scheduled by hand have neither.
CREATE TABLE workflow_versions (id uuid PRIMARY KEY);
CREATE TABLE step_runs (id uuid PRIMARY KEY);
CREATE TABLE scheduled_runs (
    id uuid PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES workflow_versions (id),
    parent_step_run_id uuid REFERENCES step_runs (id) ON DELETE SET NULL,
    child_key text,
    CONSTRAINT scheduled_runs_parent_child_key UNIQUE (parent_id, parent_step_run_id, child_key) -- want: nullable-key/warning "^scheduled_runs\.scheduled_runs_parent_child_key \(parent_id, parent_step_run_id, child_key\): parent_step_run_id may be NULL, so two scheduled_runs with the same parent_id and child_key and no parent_step_run_id are both accepted; if every scheduled_run has a parent_step_run_id" fix "^add a NULLS NOT DISTINCT unique index for rows where child_key is present" optional-unique/info "^scheduled_runs\.scheduled_runs_parent_child_key \(parent_id, parent_step_run_id, child_key\): child_key may be NULL, so scheduled_runs without child_key are not deduplicated within parent_id and parent_step_run_id"
);

-- The same under a parent that may be missing too (top-level runs).
CREATE TABLE workflow_runs (
    id uuid PRIMARY KEY,
    parent_id uuid REFERENCES workflow_runs (id) ON DELETE SET NULL,
    parent_step_run_id uuid REFERENCES step_runs (id) ON DELETE SET NULL,
    child_key text
);
CREATE UNIQUE INDEX workflow_runs_parent_child_key ON workflow_runs (parent_id, parent_step_run_id, child_key); -- want: nullable-key/warning "parent_id and parent_step_run_id may be NULL, so two workflow_runs with the same child_key and no parent_id \(or no parent_step_run_id\) are both accepted" optional-unique/info "child_key may be NULL, so workflow_runs without child_key are not deduplicated within parent_id and parent_step_run_id; intended"

-- A number drafts do not have yet, under a customer the schema leaves
-- optional: the number is unique when present, the customer a hole.
CREATE TABLE customers (id uuid PRIMARY KEY);
CREATE TABLE billing_entities (id uuid PRIMARY KEY);
CREATE TABLE invoices (
    id uuid PRIMARY KEY,
    customer_id uuid REFERENCES customers (id),
    billing_entity_id uuid NOT NULL REFERENCES billing_entities (id),
    sequential_id integer
);
CREATE UNIQUE INDEX invoices_customer_entity_sequential ON invoices (customer_id, billing_entity_id, sequential_id); -- want: nullable-key/warning "customer_id may be NULL, so two invoices with the same billing_entity_id and sequential_id and no customer_id are both accepted; if every invoice has a customer_id, declare it NOT NULL" optional-unique/info "sequential_id may be NULL, so invoices without sequential_id are not deduplicated within customer_id and billing_entity_id"

-- An item's number within its namespace and type, the namespace not
-- declared NOT NULL: the namespace is a scope, a hole.
CREATE TABLE work_items (
    id bigint PRIMARY KEY,
    type text NOT NULL,
    iid integer,
    namespace_id bigint
);
CREATE UNIQUE INDEX index_work_items_on_namespace_id_and_type_and_iid ON work_items (namespace_id, type, iid); -- want: nullable-key/warning "namespace_id may be NULL, so two work_items with the same type and iid and no namespace_id are both accepted$" optional-unique/info "iid may be NULL, so work_items without iid are not deduplicated within namespace_id and type"

-- A code unique per customer and category, both optional: the category is
-- a kind of the row's own, and with it NULL the code is still an identity,
-- a hole; the code beside the customer and the category is unique when
-- present.
CREATE TYPE connection_category AS ENUM ('accounting', 'crm');
CREATE TABLE integration_customers (
    id uuid PRIMARY KEY,
    customer_id uuid NOT NULL REFERENCES customers (id),
    category connection_category,
    code text
);
CREATE UNIQUE INDEX integration_customers_customer_category_code ON integration_customers (customer_id, category, code); -- want: nullable-key/warning "category may be NULL, so two integration_customers with the same customer_id and code and no category are both accepted" optional-unique/info "code may be NULL, so integration_customers without code are not deduplicated within customer_id and category"

-- An identity provider's issuer and client, unset while the method is
-- being configured: two values of the row's own (client_id names no
-- table), each left beside the other, a hole through both.
CREATE TABLE auth_methods (id text PRIMARY KEY);
CREATE TABLE oidc_methods (
    id text PRIMARY KEY,
    scope_id text NOT NULL REFERENCES auth_methods (id),
    issuer text,
    client_id text
);
CREATE UNIQUE INDEX oidc_methods_scope_issuer_client ON oidc_methods (scope_id, issuer, client_id); -- want: nullable-key/warning "issuer and client_id may be NULL, so two oidc_methods with the same scope_id and no issuer \(or no client_id\) are both accepted"

-- Near misses that stay unique when present: the row's own optional key
-- under parents that are NOT NULL.
CREATE TABLE spawned_keys (
    id uuid PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES workflow_versions (id),
    parent_step_run_id uuid NOT NULL REFERENCES step_runs (id),
    child_key text,
    CONSTRAINT spawned_keys_parent_child_key UNIQUE (parent_id, parent_step_run_id, child_key) -- want: optional-unique/info "child_key may be NULL, so spawned_keys without child_key are not deduplicated within parent_id and parent_step_run_id"
);

-- Near miss, a hole at warning as before: the child's key is required, so
-- a run without a parent step still has it.
CREATE TABLE spawned_runs (
    id uuid PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES workflow_versions (id),
    parent_step_run_id uuid REFERENCES step_runs (id),
    child_key text NOT NULL,
    CONSTRAINT spawned_runs_parent_child_key UNIQUE (parent_id, parent_step_run_id, child_key) -- want: nullable-key/warning "parent_step_run_id may be NULL, so two spawned_runs with the same parent_id and child_key and no parent_step_run_id are both accepted; if every spawned_run has a parent_step_run_id, declare it NOT NULL" fix "^rebuild spawned_runs_parent_child_key NULLS NOT DISTINCT"
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
