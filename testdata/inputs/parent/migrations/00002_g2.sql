-- +goose Up
CREATE TABLE g2 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g2;
