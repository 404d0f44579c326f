-- Positive: each partition is unique on its own; the table is not.
CREATE TABLE events (
    event_id text NOT NULL,
    created_on date NOT NULL
) PARTITION BY RANGE (created_on);
CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX events_2025_event_id ON events_2025 (event_id, created_on); -- want: partition-local-unique "^events_2025.events_2025_event_id \(event_id, created_on\): unique only within the partition events_2025; the partitioned table events has no unique index over \(event_id, created_on\), so the same key is accepted once in every partition$"
CREATE UNIQUE INDEX events_2026_event_id ON events_2026 (event_id, created_on); -- want: partition-local-unique "events_2026.events_2026_event_id"

-- Positive: a partition attached later brings its own unique constraint.
CREATE TABLE charges (
    charge_ref text NOT NULL,
    region text NOT NULL
) PARTITION BY LIST (region);
CREATE TABLE charges_eu (
    charge_ref text NOT NULL,
    region text NOT NULL,
    CONSTRAINT charges_eu_ref UNIQUE (charge_ref, region) -- want: partition-local-unique "charges_eu.charges_eu_ref \(charge_ref, region\): unique only within the partition charges_eu"
);
ALTER TABLE charges ATTACH PARTITION charges_eu FOR VALUES IN ('eu');
