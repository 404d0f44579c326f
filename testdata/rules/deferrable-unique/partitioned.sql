-- Positive once: the partitioned parent reports, its partitions' copies do not.
CREATE TABLE usage_events (
    event_id text NOT NULL,
    occurred_on date NOT NULL,
    CONSTRAINT usage_events_key UNIQUE (event_id, occurred_on) DEFERRABLE -- want: deferrable-unique "usage_events.usage_events_key \(event_id, occurred_on\): the UNIQUE constraint usage_events_key is DEFERRABLE"
) PARTITION BY RANGE (occurred_on);
CREATE TABLE usage_events_2026 PARTITION OF usage_events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
