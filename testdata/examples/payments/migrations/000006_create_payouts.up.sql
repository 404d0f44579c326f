-- Payouts are deduplicated per account on the bank's reference and the
-- currency. The first version let currency be NULL.
CREATE TABLE payouts (
    id           bigserial PRIMARY KEY,
    account_id   bigint NOT NULL REFERENCES accounts (id),
    payout_ref   text NOT NULL,
    currency     char(3),
    amount       bigint NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX payouts_account_ref_currency_key
    ON payouts (account_id, payout_ref, currency);
