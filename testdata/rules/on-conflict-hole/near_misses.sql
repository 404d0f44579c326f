-- Silent: the arbiter's key parts are NOT NULL.
CREATE TABLE payments (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    amount bigint NOT NULL,
    UNIQUE (account_id, idempotency_key)
);
INSERT INTO payments VALUES (1, 'k', 100) ON CONFLICT (account_id, idempotency_key) DO NOTHING;
INSERT INTO payments VALUES (1, 'k', 100) ON CONFLICT (idempotency_key, account_id) DO UPDATE SET amount = excluded.amount;
INSERT INTO payments VALUES (1, 'k', 100) ON CONFLICT ON CONSTRAINT payments_account_id_idempotency_key_key DO NOTHING;

-- Silent: NULLS NOT DISTINCT closes the hole for the arbiter too.
CREATE TABLE grants (
    org_id bigint NOT NULL,
    scope text,
    CONSTRAINT grants_key UNIQUE NULLS NOT DISTINCT (org_id, scope)
);
INSERT INTO grants VALUES (1, NULL) ON CONFLICT (org_id, scope) DO NOTHING;

-- Silent: the target repeats the partial index's predicate.
CREATE TABLE handles (
    user_id bigint NOT NULL,
    handle text NOT NULL,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX handles_live ON handles (user_id, handle) WHERE deleted_at IS NULL;
INSERT INTO handles VALUES (1, 'h', NULL) ON CONFLICT (user_id, handle) WHERE deleted_at IS NULL DO NOTHING;

-- Silent: an expression arbiter matched by the same expression.
CREATE TABLE subscribers (
    list_id bigint NOT NULL,
    email text NOT NULL
);
CREATE UNIQUE INDEX subscribers_email ON subscribers (list_id, lower(email));
INSERT INTO subscribers VALUES (1, 'A@example.com') ON CONFLICT (list_id, lower(email)) DO NOTHING;

-- Silent: without a target every unique index is an arbiter; the table's
-- own holes are nullable-key's to report.
INSERT INTO payments VALUES (2, 'k', 100) ON CONFLICT DO NOTHING;

-- Silent: a plain insert, and a primary key as the arbiter.
INSERT INTO payments VALUES (3, 'k', 100);
CREATE TEMPORARY TABLE staging (k text PRIMARY KEY);
INSERT INTO staging VALUES ('k') ON CONFLICT (k) DO NOTHING;
