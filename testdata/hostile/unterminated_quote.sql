CREATE TABLE refunds (
  id bigint PRIMARY KEY,
  note text DEFAULT 'never closed
);
