-- golang-migrate's own table, which it created before the first migration.
ALTER TABLE schema_migrations ADD COLUMN applied_at timestamptz DEFAULT now();
