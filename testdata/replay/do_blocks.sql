-- DO blocks, in the shapes idempotent migrations use: DDL under a guard
-- that asks the system catalogs whether the object exists, DDL run
-- straight, EXECUTE of literal SQL, and an exception handler as fallback.
-- Each guarded block runs twice, as a re-applied migration would: the
-- second time the guard skips what the first time did.
CREATE TABLE users (
    id uuid PRIMARY KEY,
    confirmed_at timestamptz,
    phone text
);

DO $$
BEGIN
  IF NOT EXISTS (SELECT * FROM information_schema.columns
                 WHERE table_name = 'users' AND column_name = 'email_confirmed_at') THEN
    ALTER TABLE users RENAME COLUMN confirmed_at TO email_confirmed_at;
  END IF;
END $$;

DO $$
BEGIN
  IF NOT EXISTS (SELECT * FROM information_schema.columns
                 WHERE table_name = 'users' AND column_name = 'email_confirmed_at') THEN
    ALTER TABLE users RENAME COLUMN confirmed_at TO email_confirmed_at;
  END IF;
END $$;

CREATE TABLE refresh_tokens (
    id bigserial PRIMARY KEY,
    token text,
    parent text
);

DO $$
BEGIN
  IF NOT EXISTS (SELECT * FROM information_schema.table_constraints
                 WHERE table_name = 'refresh_tokens' AND constraint_name = 'refresh_tokens_token_unique') THEN
    ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_token_unique UNIQUE (token);
  END IF;
  IF NOT EXISTS (SELECT * FROM information_schema.table_constraints
                 WHERE table_name = 'refresh_tokens' AND constraint_name = 'refresh_tokens_parent_fkey') THEN
    ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_parent_fkey
      FOREIGN KEY (parent) REFERENCES refresh_tokens (token);
  END IF;
  CREATE INDEX IF NOT EXISTS refresh_tokens_parent_idx ON refresh_tokens USING btree (parent);
END $$;

DO $$
BEGIN
  IF NOT EXISTS (SELECT * FROM information_schema.table_constraints
                 WHERE table_name = 'refresh_tokens' AND constraint_name = 'refresh_tokens_token_unique') THEN
    ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_token_unique UNIQUE (token);
  END IF;
END $$;

-- An early return is the same guard written the other way round.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'users_phone_key') THEN
    RETURN;
  END IF;
  CREATE UNIQUE INDEX users_phone_key ON users (phone);
END $$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'users_phone_key') THEN
    RETURN;
  END IF;
  CREATE UNIQUE INDEX users_phone_key ON users (phone);
END $$;

-- Straight DDL, with a nested block whose handler is the fallback.
DO $$
BEGIN
  CREATE TABLE one_time_tokens (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users ON DELETE CASCADE,
    token_type text NOT NULL,
    token_hash text NOT NULL
  );
  BEGIN
    CREATE INDEX IF NOT EXISTS one_time_tokens_token_hash_idx ON one_time_tokens USING hash (token_hash);
  EXCEPTION WHEN others THEN
    CREATE INDEX IF NOT EXISTS one_time_tokens_token_hash_idx ON one_time_tokens USING btree (token_hash);
  END;
  CREATE UNIQUE INDEX IF NOT EXISTS one_time_tokens_user_id_token_type_key
    ON one_time_tokens (user_id, token_type);
END $$;

-- EXECUTE of a literal, and of literals joined with ||, is static SQL.
-- SQL built at run time gets a note; this one changes nothing replay models.
DO $$
BEGIN
  EXECUTE 'CREATE TABLE idempotency_keys (tenant_id bigint NOT NULL, idempotency_key text)';
  EXECUTE 'CREATE UNIQUE INDEX idempotency_keys_key ON idempotency_keys '
       || '(tenant_id, idempotency_key)';
  EXECUTE format('COMMENT ON TABLE %I IS %L', 'idempotency_keys', 'one row per request');
END $$;
