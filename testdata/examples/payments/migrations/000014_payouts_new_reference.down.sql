CREATE UNIQUE INDEX payouts_account_ref_currency_key
    ON payouts (account_id, payout_ref, currency);
