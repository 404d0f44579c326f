DROP TABLE refund_claims;
