ALTER TABLE payouts DROP CONSTRAINT payouts_currency_not_null;
