-- Boundary's migrations log through a table that its base edition creates
-- before them (base/postgres, outside the tree measured here). Only the
-- columns the migrations write to are needed.
CREATE TABLE IF NOT EXISTS log_migration (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  edition text NOT NULL,
  entry text NOT NULL
);
