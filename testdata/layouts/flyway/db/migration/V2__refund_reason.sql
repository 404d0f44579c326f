ALTER TABLE refunds ADD COLUMN reason text;
