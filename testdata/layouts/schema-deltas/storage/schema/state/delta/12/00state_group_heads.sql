-- Runs before main/delta/12/02refunds.sql, which refers to it: the runner
-- sorts the files of one version by name across every store.
CREATE TABLE state_group_heads (
    state_group BIGINT NOT NULL PRIMARY KEY REFERENCES state_groups (id),
    account_id TEXT NOT NULL
);
