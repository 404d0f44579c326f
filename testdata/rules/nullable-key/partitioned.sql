-- A partitioned parent reports once; the partitions' copies stay silent.
CREATE TABLE measurements (
    device_id bigint NOT NULL,
    reading_id text,
    taken_on date NOT NULL
) PARTITION BY RANGE (taken_on);
CREATE UNIQUE INDEX measurements_reading ON measurements (device_id, reading_id, taken_on); -- want: nullable-key "reading_id may be NULL"
CREATE TABLE measurements_2026 PARTITION OF measurements FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
