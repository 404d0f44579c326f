-- A charge is performed by whoever inserts its claim row first: the insert is
-- the lock. The handler runs
--   INSERT INTO charge_claims (account_id, kind, address, namespace)
--   VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id
-- and performs the charge only when a row comes back.
--
-- namespace scopes a claim to a sub-ledger; most charges have none.
CREATE TABLE charge_claims (
    id          bigserial PRIMARY KEY,
    account_id  bigint NOT NULL REFERENCES accounts (id),
    kind        text NOT NULL,
    address     text NOT NULL,
    namespace   text,
    claimed_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT charge_claims_unique_claim UNIQUE (account_id, kind, address, namespace)
);
