-- A quoted identifier around the placeholder, and a placeholder inside a DO
-- block: both must be filled before the SQL is split and parsed.
CREATE UNIQUE INDEX sessions_refresh_token_key ON "{{ index .Options "Namespace" }}"."sessions" (refresh_token, client_id);

DO $$
BEGIN
  ALTER TABLE {{ index .Options "Namespace" }}.sessions ADD COLUMN not_after timestamptz;
END $$;
