-- Constraints added NOT VALID, then VALIDATEd: foreign keys and CHECKs, on
-- a plain table and on a partitioned one.
CREATE TABLE accounts (id bigint PRIMARY KEY, code text NOT NULL UNIQUE);

CREATE TABLE charges (
    id bigint PRIMARY KEY,
    account_id bigint,
    account_code text,
    tenant_id bigint NOT NULL,
    request_key text
);

-- A foreign key added NOT VALID and validated later.
ALTER TABLE charges ADD CONSTRAINT charges_account_fk
    FOREIGN KEY (account_id) REFERENCES accounts NOT VALID;
ALTER TABLE charges VALIDATE CONSTRAINT charges_account_fk;

-- Another over the same column, under the generated name, left NOT VALID.
ALTER TABLE charges ADD FOREIGN KEY (account_id) REFERENCES accounts (id) NOT VALID;

-- A deferrable one over a unique column, renamed, validated, dropped.
ALTER TABLE charges ADD FOREIGN KEY (account_code) REFERENCES accounts (code)
    DEFERRABLE INITIALLY DEFERRED NOT VALID;
ALTER TABLE charges RENAME CONSTRAINT charges_account_code_fkey TO charges_code_fk;
ALTER TABLE charges VALIDATE CONSTRAINT charges_code_fk;

-- A CHECK that proves the key part, validated before the index is built:
-- the index holds.
ALTER TABLE charges ADD CONSTRAINT charges_request_key_present
    CHECK (request_key IS NOT NULL) NOT VALID;
ALTER TABLE charges VALIDATE CONSTRAINT charges_request_key_present;
CREATE UNIQUE INDEX charges_request_key ON charges (tenant_id, request_key);

-- On a partitioned table the CHECK reaches the partitions; a partition made
-- after it holds it for all its (no) rows; VALIDATE on the parent reaches
-- every partition. The foreign key is copied onto each partition.
CREATE TABLE ledger (
    tenant_id bigint NOT NULL,
    entry_key text,
    booked_on date NOT NULL
) PARTITION BY RANGE (booked_on);
CREATE TABLE ledger_2024 PARTITION OF ledger FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
ALTER TABLE ledger ADD CONSTRAINT ledger_entry_key_present CHECK (entry_key IS NOT NULL) NOT VALID;
ALTER TABLE ledger ADD CONSTRAINT ledger_tenant_fk FOREIGN KEY (tenant_id) REFERENCES accounts;
CREATE TABLE ledger_2025 PARTITION OF ledger FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE UNIQUE INDEX ledger_entry ON ledger (tenant_id, entry_key, booked_on);

CREATE TABLE payouts (
    tenant_id bigint NOT NULL,
    payout_key text,
    paid_on date NOT NULL
) PARTITION BY RANGE (paid_on);
CREATE TABLE payouts_2024 PARTITION OF payouts FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
ALTER TABLE payouts ADD CONSTRAINT payouts_key_present CHECK (payout_key IS NOT NULL) NOT VALID;
ALTER TABLE payouts VALIDATE CONSTRAINT payouts_key_present;
CREATE UNIQUE INDEX payouts_key ON payouts (tenant_id, payout_key, paid_on);
