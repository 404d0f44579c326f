-- Issue 25: a job's runs, each with an optional idempotency key that is
-- unique per job when present, and the run's own status and result. The
-- key is the run's own optional value (optional-unique), not the key of a
-- key store: SET NOT NULL, a global unique index and response columns, the
-- fix this rule would offer, would break every run without a key. Silent
-- for the shape.
CREATE TABLE jobs (id bigint PRIMARY KEY);
CREATE TABLE job_runs (
    id bigserial PRIMARY KEY,
    job_id bigint NOT NULL REFERENCES jobs (id),
    status text NOT NULL,
    idempotency_key text,
    response_body jsonb,
    started_at timestamptz
);
CREATE UNIQUE INDEX job_runs_job_id_idempotency_key ON job_runs (job_id, idempotency_key); -- want: optional-unique/info "idempotency_key may be NULL, so job_runs without idempotency_key are not deduplicated within job_id"

-- Near miss: a table named for its keys is a key store whatever its index
-- reads, and is checked.
CREATE TABLE idempotency_claims ( -- want: idempotency-table-shape/warning "idempotency_claims stores idempotency keys \(idempotency_key\) and their state \(status\)"
    id bigserial PRIMARY KEY,
    job_id bigint NOT NULL REFERENCES jobs (id),
    status text NOT NULL,
    idempotency_key text,
    response_body jsonb
);
CREATE UNIQUE INDEX idempotency_claims_job_key ON idempotency_claims (job_id, idempotency_key); -- want: nullable-key/error "idempotency_key may be NULL, so two idempotency_claims with the same job_id and no idempotency_key are both accepted"

-- Near miss: the key required, a run table that keeps a response is a key
-- store and lacks its lease, status code and fingerprint.
CREATE TABLE keyed_runs ( -- want: idempotency-table-shape/warning "keyed_runs stores idempotency keys \(idempotency_key\) and their state \(status\) but lacks"
    id bigserial PRIMARY KEY,
    job_id bigint NOT NULL REFERENCES jobs (id),
    status text NOT NULL,
    idempotency_key text NOT NULL,
    response_body jsonb
);
CREATE UNIQUE INDEX keyed_runs_job_key ON keyed_runs (job_id, idempotency_key);
