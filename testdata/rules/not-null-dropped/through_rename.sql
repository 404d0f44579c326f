-- Positive: the column and the index are renamed between the index and the
-- DROP NOT NULL; the finding names them as they are now.
CREATE TABLE charges (id bigint PRIMARY KEY);
CREATE TABLE refunds (
    charge_id bigint NOT NULL,
    reason_code text NOT NULL
);
CREATE UNIQUE INDEX refunds_once_tmp ON refunds (charge_id, reason_code);
ALTER TABLE refunds RENAME COLUMN reason_code TO reason;
ALTER INDEX refunds_once_tmp RENAME TO refunds_once;
ALTER TABLE refunds ALTER COLUMN reason DROP NOT NULL; -- want: optional-unique "reason may be NULL, so refunds without reason are not deduplicated within charge_id" not-null-dropped "ALTER COLUMN reason DROP NOT NULL opens a hole in refunds.refunds_once \(charge_id, reason\)"
