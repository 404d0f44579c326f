-- Above SCHEMA_VERSION: written ahead of the code that expects it.
DROP TABLE refunds;
