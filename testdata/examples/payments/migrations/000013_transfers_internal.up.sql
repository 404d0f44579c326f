-- Internal transfers between an account's own balances have no external
-- destination.
ALTER TABLE transfers ALTER COLUMN destination DROP NOT NULL;
