-- The runner's placeholder for an auto-increment key, filled in per database.
CREATE TABLE refunds (
    refund_id $%AUTO_INCREMENT_PRIMARY_KEY%$,
    payment_id TEXT NOT NULL REFERENCES payments (payment_id),
    state_group BIGINT NOT NULL REFERENCES state_group_heads (state_group),
    ordering INT NOT NULL
);
CREATE INDEX refunds_ordering ON background_jobs (ordering);
