CREATE TABLE claims (tenant_id bigint NOT NULL, claim_key text);

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'claims_key') THEN
    CREATE UNIQUE INDEX claims_key ON claims (tenant_id, claim_key);
  END IF;
  EXECUTE format('ALTER TABLE %I ALTER COLUMN claim_key SET NOT NULL', 'claims');
END $$;
