-- Refunds use the same claim pattern, with the namespace hole closed the
-- portable way: one unique index for rows that have a namespace, and a
-- partial one for rows that do not.
CREATE TABLE refund_claims (
    id          bigserial PRIMARY KEY,
    account_id  bigint NOT NULL REFERENCES accounts (id),
    kind        text NOT NULL,
    address     text NOT NULL,
    namespace   text,
    claimed_at  timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX refund_claims_claim_key
    ON refund_claims (account_id, kind, address, namespace);

CREATE UNIQUE INDEX refund_claims_claim_no_namespace_key
    ON refund_claims (account_id, kind, address)
    WHERE namespace IS NULL;
