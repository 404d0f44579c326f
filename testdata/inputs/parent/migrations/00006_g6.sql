-- +goose Up
CREATE TABLE g6 (id bigint PRIMARY KEY);

-- +goose Down
DROP TABLE g6;
