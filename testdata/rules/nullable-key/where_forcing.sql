-- Silent: the WHERE of a partial index keeps only rows where it is TRUE, so
-- any conjunct that is NULL or FALSE for a NULL key part forces it.
CREATE TABLE jobs (
    queue text NOT NULL,
    dedup_key text,
    kind text,
    state text,
    priority int,
    active boolean,
    archived boolean,
    label text
);
CREATE UNIQUE INDEX jobs_a ON jobs (queue, dedup_key) WHERE dedup_key IS NOT NULL;
CREATE UNIQUE INDEX jobs_b ON jobs (queue, kind) WHERE kind = 'charge';
CREATE UNIQUE INDEX jobs_c ON jobs (queue, state) WHERE state <> 'done';
CREATE UNIQUE INDEX jobs_d ON jobs (queue, priority) WHERE priority >= 0;
CREATE UNIQUE INDEX jobs_e ON jobs (queue, kind) WHERE kind IN ('a', 'b');
CREATE UNIQUE INDEX jobs_f ON jobs (queue, state) WHERE state = ANY (ARRAY['x', 'y']);
CREATE UNIQUE INDEX jobs_g ON jobs (queue, label) WHERE label LIKE 'job-%';
CREATE UNIQUE INDEX jobs_h ON jobs (queue, active) WHERE active IS TRUE;
CREATE UNIQUE INDEX jobs_i ON jobs (queue, active) WHERE active;
CREATE UNIQUE INDEX jobs_j ON jobs (queue, archived) WHERE NOT archived;
CREATE UNIQUE INDEX jobs_k ON jobs (queue, label) WHERE lower(label) = 'x';
CREATE UNIQUE INDEX jobs_l ON jobs (queue, archived) WHERE archived IS FALSE;
