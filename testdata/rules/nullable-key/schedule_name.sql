-- A schedule's name (cron_key) starts many runs: it sorts jobs by schedule,
-- and the run time beside it identifies one run. Jobs without a run time
-- are not cron runs and have nothing to collide on: unique when present,
-- even though the name ends in "key".
CREATE TABLE jobs (
    id uuid PRIMARY KEY,
    queue_name text,
    cron_key text,
    cron_at timestamp
);
CREATE UNIQUE INDEX index_jobs_on_cron_key_and_cron_at_cond ON jobs (cron_key, cron_at) WHERE cron_key IS NOT NULL; -- want: optional-unique/info "^jobs\.index_jobs_on_cron_key_and_cron_at_cond \(cron_key, cron_at\): cron_at may be NULL, so among rows where cron_key IS NOT NULL, jobs without cron_at are not deduplicated within cron_key"

-- Near miss: the cron expression itself is a value; a schedule without a
-- name is still its expression under its trigger.
CREATE TABLE triggers (id uuid PRIMARY KEY);
CREATE TABLE cron_refs (
    id uuid PRIMARY KEY,
    parent_id uuid NOT NULL REFERENCES triggers (id),
    cron text NOT NULL,
    name text
);
CREATE UNIQUE INDEX cron_refs_parent_cron_name ON cron_refs (parent_id, cron, name); -- want: nullable-key/warning "name may be NULL, so two cron_refs with the same parent_id and cron and no name are both accepted$"

-- Near miss: an event's key is no schedule; a row without a tenant still
-- has it.
CREATE TABLE inbound_events (
    id uuid PRIMARY KEY,
    tenant_id uuid,
    event_key text NOT NULL
);
CREATE UNIQUE INDEX inbound_events_tenant_key ON inbound_events (tenant_id, event_key); -- want: nullable-key "tenant_id may be NULL, so two inbound_events with the same event_key and no tenant_id are both accepted$"
