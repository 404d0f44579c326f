-- Positive: the unique key has a hole, and the table stores no response.
CREATE TABLE api_idempotency ( -- want: idempotency-table-shape "api_idempotency stores idempotency keys \(key\) but lacks what the pattern needs:\n- no unique index over key without a NULL hole.*\n- no stored response, so a retry cannot be answered as the first request was \(expected response_code and response_body\)$"
    tenant_id bigint,
    key text NOT NULL,
    request_fingerprint text NOT NULL,
    locked_at timestamptz
);
CREATE UNIQUE INDEX api_idempotency_key ON api_idempotency (tenant_id, key); -- want: nullable-key "tenant_id may be NULL"

-- Positive: a business table that also keeps responses is a key store, and
-- lacks the lease and the fingerprint.
CREATE TABLE checkout_requests ( -- want: idempotency-table-shape "checkout_requests stores idempotency keys \(idempotency_key\) but lacks what the pattern needs:\n- no lease or expiry.*\n- no request fingerprint.*\(expected request_fingerprint\)$"
    idempotency_key text PRIMARY KEY,
    response_code integer,
    response_body jsonb
);
