-- invalid-unique-index reads what only a live server knows (pg_index's
-- indisvalid and indisready), so lint never reports it: these wants are
-- checked by inspect, which applies this file to a real server and reads it
-- back (TestLiveRulesMatchTheirFixtures). The invalid index that a failed
-- CREATE UNIQUE INDEX CONCURRENTLY leaves needs colliding rows; an index
-- built ON ONLY a partitioned table is invalid by itself.
CREATE TABLE payments (
    org bigint NOT NULL,
    ref text NOT NULL,
    created date NOT NULL
) PARTITION BY RANGE (created);
CREATE TABLE payments_2026 PARTITION OF payments FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');

-- Positive: ON ONLY the parent, and the partition's index never attached.
CREATE UNIQUE INDEX payments_org_ref ON ONLY payments (org, ref, created); -- want: invalid-unique-index "^payments.payments_org_ref \(org, ref, created\): the partitioned index is not valid: some partitions have no index attached to it"

-- Negative: every partition's index attached, so the parent is valid.
CREATE TABLE refunds (
    org bigint NOT NULL,
    ref text NOT NULL,
    created date NOT NULL
) PARTITION BY RANGE (created);
CREATE TABLE refunds_2026 PARTITION OF refunds FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX refunds_org_ref ON ONLY refunds (org, ref, created);
CREATE UNIQUE INDEX refunds_2026_org_ref ON refunds_2026 (org, ref, created);
ALTER INDEX refunds_org_ref ATTACH PARTITION refunds_2026_org_ref;

-- Negative: a plain build, valid.
CREATE TABLE transfers (org bigint NOT NULL, ref text NOT NULL);
CREATE UNIQUE INDEX CONCURRENTLY transfers_org_ref ON transfers (org, ref);
