-- Positive: the unique key has a hole, and the table stores no response. An
-- in-progress flag is a claim state.
CREATE TABLE api_idempotency ( -- want: idempotency-table-shape "api_idempotency stores idempotency keys \(key\) and their state \(in_progress\) but lacks what the pattern needs:\n- no unique index over key without a NULL hole.*\n- no stored response, so a retry cannot be answered as the first request was \(expected response_code and response_body\)$"
    tenant_id bigint,
    key text NOT NULL,
    in_progress boolean NOT NULL DEFAULT true,
    request_fingerprint text NOT NULL,
    locked_at timestamptz
);
CREATE UNIQUE INDEX api_idempotency_key ON api_idempotency (tenant_id, key); -- want: nullable-key "tenant_id may be NULL"

-- Positive: a business table that also keeps responses and a claim state is
-- a key store, and lacks the lease and the fingerprint.
CREATE TABLE checkout_requests ( -- want: idempotency-table-shape "checkout_requests stores idempotency keys \(idempotency_key\) and their state \(state\) but lacks what the pattern needs:\n- no lease or expiry.*\n- no request fingerprint.*\(expected request_fingerprint\)$"
    idempotency_key text PRIMARY KEY,
    state text NOT NULL,
    response_code integer,
    response_body jsonb
);

-- Positive: camelCase names, an enum status and a uuid key.
CREATE TYPE "ClaimStatus" AS ENUM ('RUNNING', 'DONE');
CREATE TABLE "IdempotencyClaim" ( -- want: idempotency-table-shape "\"IdempotencyClaim\" stores idempotency keys \(idempotencyKey\) and their state \(claimStatus\) but lacks what the pattern needs:\n- no lease or expiry.*\n- no stored response.*\n- no request fingerprint.*$"
    "idempotencyKey" uuid PRIMARY KEY,
    "claimStatus" "ClaimStatus" NOT NULL,
    "createdAt" timestamptz NOT NULL
);
