-- Usage outranks shape. Alone, the index reads as unique when present (a
-- run without a key is not deduplicated), but this claim inserts with ON
-- CONFLICT DO NOTHING and can leave the key NULL: for that statement the
-- NULL rows are claims, and a repeat inserts a second run.
CREATE TABLE environments (id bigint PRIMARY KEY);
INSERT INTO environments VALUES (1);
CREATE TABLE task_runs (
    id bigserial PRIMARY KEY,
    environment_id bigint NOT NULL REFERENCES environments (id),
    task text NOT NULL,
    idempotency_key text,
    CONSTRAINT task_runs_once UNIQUE (environment_id, task, idempotency_key) -- want: optional-unique/info "idempotency_key may be NULL, so task_runs without idempotency_key are not deduplicated within environment_id and task"
);
INSERT INTO task_runs (environment_id, task, idempotency_key) VALUES (1, 'send-invoice', NULL) ON CONFLICT DO NOTHING; -- want: on-conflict-hole/error "^INSERT INTO task_runs ... ON CONFLICT DO NOTHING: without a conflict target the arbiters are the unique indexes over the columns it writes or leaves NULL, and task_runs.task_runs_once \(environment_id, task, idempotency_key\) lets idempotency_key be NULL, and when it is the conflict never fires: a repeated request inserts a second row instead of DO NOTHING$"
INSERT INTO task_runs VALUES (DEFAULT, 1, 'send-invoice') ON CONFLICT (environment_id, task, idempotency_key) DO NOTHING; -- want: on-conflict-hole/error "lets idempotency_key be NULL"

-- Silent: these statements always write a key, so the conflict fires.
INSERT INTO task_runs (environment_id, task, idempotency_key) VALUES (1, 'send-invoice', 'run-1') ON CONFLICT DO NOTHING;
INSERT INTO task_runs (environment_id, task, idempotency_key) VALUES (1, 'send-invoice', 'run-1'::text) ON CONFLICT (environment_id, task, idempotency_key) DO NOTHING;

-- Silent: no unique index is over the columns this one writes but the
-- serial id, which is new on every call; nothing here claims anything.
INSERT INTO task_runs (environment_id, task) SELECT id, 'cleanup' FROM environments ON CONFLICT (id) DO NOTHING;
TRUNCATE task_runs;

-- A claim that leaves the key out altogether: it is NULL, and the repeat
-- inserts again.
INSERT INTO task_runs (environment_id, task) VALUES (1, 'nightly') ON CONFLICT DO NOTHING; -- want: on-conflict-hole/error "arbiters are the unique indexes over the columns it writes or leaves NULL, and task_runs.task_runs_once \(environment_id, task, idempotency_key\) lets idempotency_key be NULL"
TRUNCATE task_runs;
