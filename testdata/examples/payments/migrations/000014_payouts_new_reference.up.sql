-- Payouts move to the bank's new reference scheme. The unique index on the
-- old reference goes now; its replacement is planned for the next release.
DROP INDEX payouts_account_ref_currency_key;
