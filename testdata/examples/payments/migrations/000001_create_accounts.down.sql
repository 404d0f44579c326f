DROP TRIGGER accounts_touch ON accounts;
DROP FUNCTION touch_updated_at();
DROP TABLE accounts;
