-- Positive: a key table that claims keys with a status, with a plain index
-- and a response body, and nothing else the pattern needs: one line per
-- missing point.
CREATE TABLE idempotency_keys ( -- want: idempotency-table-shape "^idempotency_keys stores idempotency keys \(idempotency_key\) and their state \(status\) but lacks what the pattern needs:\n- no unique index over idempotency_key without a NULL hole, so the INSERT of the key is not a lock \(expected UNIQUE \(idempotency_key\), scoped per account if keys are, every part NOT NULL\)\n- no lease or expiry on the in-progress state, so a request that died keeps the key forever \(expected locked_at or expires_at\)\n- the stored response has no status code, so a retry of a request that failed is answered as if it succeeded \(expected response_code\)\n- no request fingerprint, so the same key sent with a different payload gets another request's response \(expected request_fingerprint\)$"
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL, -- want: key-without-unique "idempotency_keys.idempotency_key"
    status text NOT NULL DEFAULT 'started',
    response_body jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX idempotency_keys_key ON idempotency_keys (account_id, idempotency_key);
