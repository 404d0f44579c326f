-- The runner's own bookkeeping, run before anything else on every start.
CREATE TABLE IF NOT EXISTS schema_version (
    lock CHAR(1) NOT NULL DEFAULT 'X' UNIQUE,
    version INTEGER NOT NULL,
    upgraded BOOL NOT NULL,
    CHECK (lock = 'X')
);

CREATE TABLE IF NOT EXISTS applied_schema_deltas (
    version INTEGER NOT NULL,
    file TEXT NOT NULL,
    UNIQUE (version, file)
);
