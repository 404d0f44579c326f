-- Every payout has a currency. payouts is large, so NOT NULL is added the
-- lock-friendly way: a CHECK that is NOT VALID takes a brief lock, and
-- VALIDATE scans the table without blocking writes.
UPDATE payouts SET currency = 'EUR' WHERE currency IS NULL;

ALTER TABLE payouts
    ADD CONSTRAINT payouts_currency_not_null CHECK (currency IS NOT NULL) NOT VALID;

ALTER TABLE payouts VALIDATE CONSTRAINT payouts_currency_not_null;
