CREATE TABLE devices (
    id bigserial PRIMARY KEY,
    serial text NOT NULL,
    vendor text
);
---- create above / drop below ----
DROP TABLE devices;
