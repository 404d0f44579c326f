CREATE TABLE ${schema}.refunds_staging (id bigint);
CREATE TABLE refunds (
    id bigint PRIMARY KEY,
    merchant_id bigint NOT NULL REFERENCES merchants (id),
    reference text
);
